#include "runtime/exclusive.h"

#include <algorithm>

namespace brisk {

void ExclusiveGroup::join(Member& m) {
  std::unique_lock lock(mutex_);
  t_member = &m;
  cv_.wait(lock, [&] { return !exclusive_; });  // a section walks members_ unlocked
  members_.push_back(&m);
  m.running = true;
}

void ExclusiveGroup::leave() {
  std::unique_lock lock(mutex_);
  t_member->running = false;
  cv_.notify_all();
  cv_.wait(lock, [&] { return !exclusive_; });
  std::erase(members_, t_member);
  t_member = nullptr;
}

void ExclusiveGroup::exec_end() {
  if (!t_member) return;  // no member (the only thread): no section waits for it
  std::lock_guard lock(mutex_);
  t_member->running = false;
  if (exclusive_) cv_.notify_all();
}

void ExclusiveGroup::exec_start() {
  if (!t_member) return;
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return !exclusive_; });
  t_member->running = true;
}

void ExclusiveGroup::begin() {
  if (t_depth++) return;
  std::unique_lock lock(mutex_);
  t_was_running = t_member && t_member->running;
  if (t_member) t_member->running = false;  // another thread's section may be waiting for this one
  cv_.notify_all();
  cv_.wait(lock, [&] { return !exclusive_; });
  exclusive_ = true;
  // After the store to exclusive_: see park_if_pending.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (Member* m : members_)
    if (m->running) m->hart->request_exit();
  cv_.wait(lock, [&] { return std::none_of(members_.begin(), members_.end(), [](const Member* m) { return m->running; }); });
}

void ExclusiveGroup::end() {
  if (--t_depth) return;
  std::lock_guard lock(mutex_);
  exclusive_ = false;
  if (t_member) t_member->running = t_was_running;
  cv_.notify_all();
}

}  // namespace brisk
