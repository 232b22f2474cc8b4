import FenceLabBench

/// Proves the allocation counter: a body that builds an array per item on purpose.
/// Expected: about 1 allocation per item (the array's buffer). Not gated by --compare.
enum AllocationBenchmarks {
    static let all: [Benchmark] = [arrayPerItem]
    static let items = 1024

    static let arrayPerItem = Benchmark(
        "alloc/array-per-item-demo", group: "alloc", itemsPerRun: items, unit: "item",
        gated: false, target: "≈ 1 alloc/item"
    ) {
        return {
            var s = 0.0
            for i in 0..<items {
                let a = [Double](repeating: Double(i), count: 4)
                escapedArray = a  // escapes: the optimiser cannot stack-promote it
                s += a[3]
            }
            return s
        }
    }
}

nonisolated(unsafe) var escapedArray: [Double] = []
