"""brisk's branch predictor (csr/pmu.cpp), the integration tests' model of MISP and branch-misses:
gshare with 4096 two-bit counters from 0, indexed by (pc >> 1) ^ 12 bits of global history."""


class Gshare:
    def __init__(self):
        self.counters, self.history = [0] * 4096, 0

    def _index(self, pc):
        return ((pc >> 1) ^ self.history) & 4095

    def predicts_taken(self, pc):
        return self.counters[self._index(pc)] >= 2

    def branch(self, pc, taken):
        """Trains on one conditional branch; whether it was mispredicted."""
        k = self._index(pc)
        missed = (self.counters[k] >= 2) != taken
        self.counters[k] = min(self.counters[k] + 1, 3) if taken else max(self.counters[k] - 1, 0)
        self.history = ((self.history << 1) | taken) & 4095
        return missed
