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
        # Each set: its lines' tags, most recently used first (true LRU:
        # the last one is the victim once the set is full).
        self.lines = [[] for _ in range(sets)]

    def access(self, write, addr):
        line = addr // LINE_BYTES
        index, tag = line % self.sets, line // self.sets
        lines = self.lines[index]
        present = tag in lines
        if present:
            # A hit of either kind makes the line the most recently used.
            lines.remove(tag)
            lines.insert(0, tag)
        if write:
            # Write-through: every write goes to DRAM.  A write of a whole
            # line (every write of the traces is one) that misses brings its
            # line in, evicting like a read miss, without reading DRAM.
            self.writes += 1
            if not present:
                self.allocate(lines, tag)
            return
        if present:
            self.hits += 1
            return
        self.misses += 1
        self.allocate(lines, tag)

    def allocate(self, lines, tag):
        if len(lines) == self.ways:
            lines.pop()
            self.evictions += 1
        lines.insert(0, tag)
