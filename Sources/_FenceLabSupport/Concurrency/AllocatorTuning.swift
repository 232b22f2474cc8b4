import CMalloc

/// The one allocator setting `fencelab run` and `fencelab accept` make before their replicates.
///
/// A run's work items each allocate and free a few MB of drive buffers. With nothing else
/// held on the heap (replicates are aggregated as they finish), glibc returns the top of the
/// heap to the system after every item (`brk`/`madvise` down, page faults up again): for
/// `fencelab run scenarios/edge-loiter-100m.json --replicates 1000 --jobs 2` that was
/// 468 000 page faults and 0.9 s of system time on 7.0 s of user time. Keeping 16 MiB of
/// padding at the heap top (`M_TOP_PAD`) brings it to 3 900 faults and 0.01 s, for ≈ 4 MB
/// more peak RSS (measured, release build, glibc 2.36). Only the replicate commands set it: the
/// same padding cost a GPX replay that grows large arrays 13 MB of peak RSS for no gain.
/// Elsewhere than glibc it does nothing.
package enum AllocatorTuning {
    /// `M_TOP_PAD` in bytes: the padding glibc keeps when it grows or trims a heap.
    package static let heapTopPad_bytes: Int32 = 16 << 20

    /// Sets `M_TOP_PAD` to `heapTopPad_bytes`; true when the allocator took it (glibc).
    @discardableResult
    package static func keepHeapTopPadded() -> Bool {
        fl_malloc_set_top_pad(heapTopPad_bytes) == 1
    }
}
