// fencelab-bench: performance-regression suite (issue 8 fills this).
import CReference
print("fencelab-bench: placeholder, ziggurat sum \(fl_ref_ziggurat_sum(42, 1000))")
