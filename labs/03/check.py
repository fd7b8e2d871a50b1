"""Checker of lab 03 (make check): results, conflicts removed, predictions."""
import sys

from labcheck import Lab

lab = Lab("lab 03")
status, out, records = lab.run(sys.argv[1])
lab.check("transpose_unpadded: 0 of 16384 elements wrong" in out, "transpose_unpadded transposes",
          "transpose_unpadded is given: did you change it?")
lab.check("transpose_padded: 0 of 16384 elements wrong" in out, "transpose_padded transposes",
          "transpose_padded's out is wrong (above): the padding changes only the tile's shape (step 3)")
unpadded, padded = lab.kernel(records, "transpose_unpadded"), lab.kernel(records, "transpose_padded")
padded_passes = padded["derived"]["bank_passes_per_shared_access"]
lab.check(padded["counters"]["shared_accesses"] > 0 and padded_passes <= 1.0,
          f"transpose_padded has no bank conflicts ({padded_passes:g} passes per shared access,"
          f" {padded['counters']['shared_accesses']} accesses)",
          "a warp's accesses still take more than one pass: which bank holds tile[x][c] for x = 0..31?\n"
          "(guide G.5.3, docs/isa.md section 2.3)" if padded["counters"]["shared_accesses"] else
          "transpose_padded must still go through shared memory")

guess = lab.predictions(keys=("unpadded_column_read_passes", "unpadded_passes_per_access", "padded_passes_per_access"))
# Half of the accesses are row writes and half column reads; the writes take
# one pass each (a row is 32 consecutive words), the reads the rest.
accesses, passes = unpadded["counters"]["shared_accesses"], unpadded["counters"]["shared_passes"]
column_read_passes = (passes - accesses / 2) / (accesses / 2) if accesses else 0
lab.predicted(guess, "unpadded_column_read_passes", column_read_passes,
              hint="the 32 words of a column of tile[32][32] are 32 words apart: which banks?")
lab.predicted(guess, "unpadded_passes_per_access", unpadded["derived"]["bank_passes_per_shared_access"], 0.05,
              hint="a warp makes as many row writes as column reads: average their passes")
lab.predicted(guess, "padded_passes_per_access", padded_passes, 0.05,
              hint="with the padding, how many passes does a column read take?")
lab.finish()
