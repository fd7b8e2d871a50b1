# Included by every lab's Makefile (labs/README.md).  A lab's Makefile sets
# PROGRAM (the program to build), SOURCES (its .cu files) and includes this.
#
#   make check                      build the program, run it, check it
#   make check KESTREL_BUILD=DIR    the Kestrel build tree (default ../../build)
#   KESTREL_SOURCE=DIR              the Kestrel source tree, for tools/ (default ../..)
#   make run                        build and run it, nothing checked
#   make trace                      run it with the instruction trace in trace.txt
#   make view                       ... and draw it as a page: view.html (tools/kestrel-view)
#   make plot                       the last run's counters as a table and stats.svg (tools/kestrel-stats)
#   make clean
#
# The program runs on the functional model (KESTREL_BACKEND=model) with a
# fixed geometry: 2 SMs x 8 warps x 32 lanes (labcheck.py).  A lab that runs
# elsewhere (lab 07: rtlsim and its DRAM model) sets RUN_ENV, PROGRAM_ARGS are
# the program's arguments for make run and make trace, PLOT_ARGS
# kestrel-stats' options for make plot.
KESTREL_BUILD ?= ../../build
KESTREL_CC ?= $(KESTREL_BUILD)/tools/kestrel-cc/kestrel-cc
PYTHON ?= python3
LABS_COMMON := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
KESTREL_SOURCE ?= $(LABS_COMMON)/../..

.PHONY: check run trace view plot clean tool

# A lab whose checker builds its program itself (lab 05) sets CHECK_NEEDS
# empty and CHECK_ARGS to what check.py takes.
CHECK_NEEDS ?= $(PROGRAM)
CHECK_ARGS ?= ./$(PROGRAM)
RUN_ENV ?= KESTREL_BACKEND=model
PLOT_ARGS ?= --by-kernel

check: $(CHECK_NEEDS)
	@PYTHONPATH=$(LABS_COMMON) PYTHONDONTWRITEBYTECODE=1 $(PYTHON) check.py $(CHECK_ARGS)

run: $(PROGRAM)
	-$(RUN_ENV) KESTREL_STATS=stats.jsonl ./$(PROGRAM) $(PROGRAM_ARGS)

trace: $(PROGRAM)
	-$(RUN_ENV) KESTREL_ITRACE=trace.txt ./$(PROGRAM) $(PROGRAM_ARGS)
	@echo "lab: the instruction trace is in trace.txt (docs/runtime.md, \"Instruction trace\")"

view: trace
	$(PYTHON) $(KESTREL_SOURCE)/tools/kestrel-view/kestrel-view trace.txt -o view.html

plot:
	@test -f stats.jsonl || { echo "lab: no stats.jsonl yet: make run (or make check) first" >&2; exit 2; }
	$(PYTHON) $(KESTREL_SOURCE)/tools/kestrel-stats/kestrel-stats $(PLOT_ARGS) stats.jsonl --svg stats.svg

tool:
	@test -x $(KESTREL_CC) || { echo "lab: no kestrel-cc at $(KESTREL_CC): build Kestrel first (cmake --build build --target kestrel-cc kestrel_cudart) or give make KESTREL_BUILD=/path/to/build" >&2; exit 2; }

$(PROGRAM): $(SOURCES) | tool
	$(KESTREL_CC) -O2 -o $@ $(SOURCES)

clean:
	rm -f $(PROGRAM) stats.jsonl stats.svg trace.txt view.html
