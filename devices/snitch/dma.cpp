#include "devices/snitch/dma.h"

#include <algorithm>
#include <cstring>

#include "devices/snitch/tcdm.h"

namespace brisk::snitch {

bool HostMemory::read(uint64_t addr, uint8_t* data, uint64_t size) {
  const uint8_t* p = at(addr, size);
  if (p) std::memcpy(data, p, size);
  return p;
}

bool HostMemory::write(uint64_t addr, const uint8_t* data, uint64_t size) {
  uint8_t* p = at(addr, size);
  if (p) std::memcpy(p, data, size);
  return p;
}

uint32_t Dma::copy(uint64_t cycle, uint32_t size, uint32_t config) {
  const uint32_t rows = (config & kConfig2d) ? reps_ : 1;
  const uint32_t id = next_id_++;
  queue_.push_back({id, src_, dst_, src_stride_, dst_stride_, size, rows, cycle + 1});
  return id;
}

uint32_t Dma::status(uint32_t which) const {
  switch (which) {
    case kCompletedId: return completed_id_;
    case kNextId: return next_id_;
    case kBusy: return !queue_.empty();
    case kWouldBlock: return queue_.size() >= kQueueDepth;
    default: return 0;
  }
}

uint64_t Dma::beats(uint64_t addr, uint64_t size) {
  // A burst stays within its page, so addr + size - 1 does not wrap.
  return (addr + size - 1) / kBeatBytes - addr / kBeatBytes + 1;
}

uint64_t Dma::beat_bytes(const Burst& b) {
  const uint64_t pos = b.addr + b.done;
  return std::min<uint64_t>(kBeatBytes - pos % kBeatBytes, b.size - b.done);
}

bool Dma::exhausted(const Transfer& t, const Cursor& c) { return t.size == 0 || c.row >= t.rows; }

bool Dma::next_burst(const Transfer& t, Cursor& c, bool source, Burst& burst) {
  if (exhausted(t, c)) return false;
  const uint64_t row_base = source ? t.src + c.row * t.src_stride : t.dst + c.row * t.dst_stride;
  const uint64_t addr = row_base + c.offset;
  const uint64_t size = std::min<uint64_t>(t.size - c.offset, kPageBytes - addr % kPageBytes);
  burst = {addr, size};
  c.offset += size;
  if (c.offset == t.size) {
    c.row++;
    c.offset = 0;
  }
  return true;
}

void Dma::issue(std::deque<Burst>& bursts, Cursor& c, bool source, uint64_t cycle) {
  Burst burst;
  if (bursts.size() >= kMaxOutstanding || !next_burst(queue_.front(), c, source, burst)) return;
  burst.ready = cycle + memory_latency(burst.addr);
  counters_.add(source ? Metric::DMA_AR_DONE : Metric::DMA_AW_DONE, 0, 1);
  counters_.add(source ? Metric::DMA_AR_BW : Metric::DMA_AW_BW, 0, beats(burst.addr, burst.size) * kBeatBytes);
  bursts.push_back(burst);
}

void Dma::step(uint64_t cycle) {
  const Transfer& t = queue_.front();
  const uint64_t buffered = buffer_.size();  // a beat read in this cycle is written from the next
  issue(reads_, read_, true, cycle);
  if (!reads_.empty()) {
    Burst& r = reads_.front();
    const uint64_t n = beat_bytes(r);
    if (r.ready > cycle) {
      counters_.add(Metric::DMA_R_STALL, 0, 1);
    } else if (buffer_.size() + n > kBufferBytes) {
      counters_.add(Metric::DMA_BUF_R_STALL, 0, 1);
    } else {
      uint8_t data[kBeatBytes] = {};
      if (!memory_.read(r.addr + r.done, data, n)) {
        std::fill_n(data, n, 0);
        bus_errors_++;
      }
      buffer_.insert(buffer_.end(), data, data + n);
      r.done += n;
      counters_.add(Metric::DMA_R_DONE, 0, 1);
      counters_.add(Metric::DMA_R_BW, 0, kBeatBytes);  // R has no strobes: every beat carries the bus width
      if (r.done == r.size) reads_.pop_front();
    }
  }
  issue(writes_, write_, false, cycle);
  if (!writes_.empty()) {
    Burst& w = writes_.front();
    const uint64_t n = beat_bytes(w);
    if (buffered < n) {
      counters_.add(Metric::DMA_BUF_W_STALL, 0, 1);
    } else {
      uint8_t data[kBeatBytes];
      std::copy_n(buffer_.begin(), n, data);
      buffer_.erase(buffer_.begin(), buffer_.begin() + n);
      if (!memory_.write(w.addr + w.done, data, n)) bus_errors_++;
      w.done += n;
      counters_.add(Metric::DMA_W_DONE, 0, 1);
      counters_.add(Metric::DMA_W_BW, 0, n);  // the strobed bytes
      if (w.done == w.size) {
        responses_.push_back(cycle + memory_latency(w.addr));
        writes_.pop_front();
      }
    }
  }
  while (!responses_.empty() && responses_.front() <= cycle) {
    counters_.add(Metric::DMA_B_DONE, 0, 1);
    responses_.pop_front();
  }
  counters_.add(Metric::DMA_BUSY, 0, 1);
  if (reads_.empty() && writes_.empty() && responses_.empty() && exhausted(t, read_) && exhausted(t, write_)) {
    completed_id_ = t.id;
    queue_.pop_front();
    read_ = write_ = {};
  }
}

uint64_t Dma::run(uint64_t cycle, bool stop_on_completion) {
  while (cycle_ < cycle) {
    if (queue_.empty()) {
      cycle_ = cycle;
      break;
    }
    const uint64_t start = queue_.front().not_before;
    if (start > cycle_ + 1) {
      cycle_ = std::min(cycle, start - 1);  // idle until the next transfer was issued
      continue;
    }
    cycle_++;
    const uint32_t completed = completed_id_;
    step(cycle_);
    if (stop_on_completion && completed_id_ != completed) break;
  }
  return cycle_;
}

}  // namespace brisk::snitch
