# Included by every lab's Makefile (labs/README.md).  A lab's Makefile sets
# PROGRAM (the program to build), SOURCES (its .cu files) and includes this.
#
#   make check                      build the program, run it, check it
#   make check KESTREL_BUILD=DIR    the Kestrel build tree (default ../../build)
#   make run                        build and run it, nothing checked
#   make trace                      run it with the instruction trace in trace.txt
#   make clean
#
# The program runs on the functional model (KESTREL_BACKEND=model) with a
# fixed geometry: 2 SMs x 8 warps x 32 lanes (labcheck.py).
KESTREL_BUILD ?= ../../build
KESTREL_CC ?= $(KESTREL_BUILD)/tools/kestrel-cc/kestrel-cc
PYTHON ?= python3
LABS_COMMON := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

.PHONY: check run trace clean tool

check: $(PROGRAM)
	@PYTHONPATH=$(LABS_COMMON) $(PYTHON) check.py ./$(PROGRAM)

run: $(PROGRAM)
	KESTREL_BACKEND=model KESTREL_STATS=stats.jsonl ./$(PROGRAM)

trace: $(PROGRAM)
	KESTREL_BACKEND=model KESTREL_ITRACE=trace.txt ./$(PROGRAM)
	@echo "lab: the instruction trace is in trace.txt (docs/runtime.md, \"Instruction trace\")"

tool:
	@test -x $(KESTREL_CC) || { echo "lab: no kestrel-cc at $(KESTREL_CC): build Kestrel first (cmake --build build --target kestrel-cc kestrel_cudart) or give make KESTREL_BUILD=/path/to/build" >&2; exit 2; }

$(PROGRAM): $(SOURCES) | tool
	$(KESTREL_CC) -O2 -o $@ $(SOURCES)

clean:
	rm -f $(PROGRAM) stats.jsonl trace.txt
