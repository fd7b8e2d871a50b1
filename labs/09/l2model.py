"""Lab 09: a model of kestrel_l2_cache's hits and misses (README.md, step 2).

L2Model(sets, ways) starts empty; access(write, addr) takes one request in
the order the L2 takes them and counts what the L2 does with it.  The
checker replays every trace on the RTL and on this model and compares
hits, misses, evictions and writes.  The model has no time: a read of a line
whose fill is still in flight (the RTL's merge) is a hit here."""

LINE_BYTES = 64  # kestrel_pkg::LineBytes


class L2Model:
    def __init__(self, sets, ways):
        self.sets, self.ways = sets, ways
        self.hits = self.misses = self.evictions = self.writes = 0
        # TODO (step 2): the state of the cache: which lines each set holds,
        # and what the replacement needs to know about them.

    def access(self, write, addr):
        # TODO (step 2): which line, set and tag `addr` is; whether the set
        # holds it; what a read and a write each do then (rtl/mem/
        # kestrel_l2_cache.sv, its header): count hits, misses, evictions
        # and writes as the L2's events do.
        raise NotImplementedError("L2Model.access is not written yet (README.md, step 2)")
