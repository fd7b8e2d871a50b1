// Host helpers of the multi-file program, defined in checks.cpp.
#pragma once

bool device_is_usable();
// The three-point sum main.cu expects at element i of fill(first + i).
int expected_three_point(int first, int i, int n);
