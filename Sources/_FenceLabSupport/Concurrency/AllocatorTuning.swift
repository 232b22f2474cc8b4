import CMalloc

/// The allocator calls FenceLab makes: the setting `fencelab run` and `fencelab accept` make
/// before their replicates, and the arena limit and the trim `fencelab sweep` makes before and
/// after its drives.
///
/// A run's work items each allocate and free a few MB of drive buffers. With nothing else
/// held on the heap (replicates are aggregated as they finish), glibc returns the top of the
/// heap to the system after every item (`brk`/`madvise` down, page faults up again): for
/// `fencelab run scenarios/edge-loiter-100m.json --replicates 1000 --jobs 2` that was
/// 468 000 page faults and 0.9 s of system time on 7.0 s of user time. Keeping 16 MiB of
/// padding at the heap top (`M_TOP_PAD`) brings it to 3 900 faults and 0.01 s, for ≈ 4 MB
/// more peak RSS (measured, release build, glibc 2.36). Only the replicate commands set it: the
/// same padding cost a GPX replay that grows large arrays 13 MB of peak RSS for no gain.
///
/// A sweep's workers free their drive buffers, records and scratch in their own arenas, which the
/// summary (built on the calling thread) does not reuse. `returnFreeMemory` after the drives
/// hands it back (one `malloc_trim(0)`): on a 976 000-point grid with `--jobs 2` the process's
/// anonymous memory falls from 35.0 MB to 12.6 MB there (measured, release build, glibc 2.36).
///
/// glibc gives each new thread that allocates an arena of its own (up to 8 per core). A sweep's
/// helper threads (the resume file's writer, the manifest's encoders, the frontier thread) each
/// took one beside the workers', and the summary's peak then varied with which arena its threads
/// drew: on the 976 000-point grid with `--jobs 2`, 92.7–104.6 MB over six runs. With at most one
/// arena per worker (`limitArenas`), 90.3–92.4 MB over six, and the same time.
/// Elsewhere than glibc all three do nothing.
package enum AllocatorTuning {
    /// `M_TOP_PAD` in bytes: the padding glibc keeps when it grows or trims a heap.
    package static let heapTopPad_bytes: Int32 = 16 << 20

    /// Sets `M_TOP_PAD` to `heapTopPad_bytes`; true when the allocator took it (glibc).
    @discardableResult
    package static func keepHeapTopPadded() -> Bool {
        fl_malloc_set_top_pad(heapTopPad_bytes) == 1
    }

    /// At most `count` allocator arenas (glibc `M_ARENA_MAX`; at least 2: the main one and one
    /// that threads share); threads beyond them share the existing ones. Call before the threads
    /// start. True when the allocator took it (glibc).
    @discardableResult
    package static func limitArenas(to count: Int) -> Bool {
        fl_malloc_set_arena_max(Int32(clamping: max(2, count))) == 1
    }

    /// Returns the free memory of every allocator arena to the system (glibc `malloc_trim(0)`);
    /// true when some was returned.
    @discardableResult
    package static func returnFreeMemory() -> Bool { fl_malloc_trim() == 1 }
}
