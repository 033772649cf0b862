// Until runtime/perf_data.cpp and runtime/exact_profile.cpp are merged (branches wt/perfdata and
// wt/autofdo): stand-ins that say so, compiled only while the real writer's file is absent. Delete
// this file with the merge that brings the second of them.
#include "runtime/error.h"
#include "runtime/profile.h"

namespace brisk::profile {

#if !__has_include("runtime/perf_data.cpp")
std::unique_ptr<Sink> perf_data_writer(const std::string& path, const Event&, const Session&) {
  throw Error("cannot write {}: this brisk has no perf.data writer yet; use --format perfscript", path);
}
#endif

#if !__has_include("runtime/exact_profile.cpp")
std::unique_ptr<Sink> exact_writer(const std::string& path) {
  throw Error("cannot write {}: this brisk has no --exact writer yet", path);
}
#endif

}  // namespace brisk::profile
