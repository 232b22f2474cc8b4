import FenceLab
import Foundation
import Testing
import _FenceLabSupport

/// A fresh temporary folder per test, removed afterwards.
private func withScratch(_ body: (String) throws -> Void) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fencelab-output-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try body(dir)
}

private func files(_ tag: String) -> [(name: String, bytes: [UInt8])] {
    ReportWriter.fileNames.map { ($0, Array("\(tag) \($0)\n".utf8)) }
}

private func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

@Suite struct OutputTests {
    @Test func writesNewFolderAndReplacesOldOne() throws {
        try withScratch { dir in
            let dest = dir + "/reports/latest"  // parent created by preflight
            try ReportFolder.write(files: files("first"), to: dest, replaceable: ReportWriter.replaceableNames)
            #expect(read(dest + "/report.json") == "first report.json\n")
            try ReportFolder.write(files: files("second"), to: dest, replaceable: ReportWriter.replaceableNames)
            for name in ReportWriter.fileNames { #expect(read(dest + "/" + name) == "second \(name)\n") }
            // No temporaries are left next to it.
            let siblings = try FileManager.default.contentsOfDirectory(atPath: dir + "/reports")
            #expect(siblings == ["latest"])
        }
    }

    /// `whenInPlace` runs once per write, after the new files are in place: a new folder, a
    /// replaced one (beside the removal of the old one with two jobs) and one merged into a folder
    /// holding other files; never when the write fails.
    @Test func whenInPlaceRunsOnceAfterTheNewFilesAreIn() throws {
        try withScratch { dir in
            let dest = dir + "/out"
            let seen = Locked<[String?]>([])
            let look: @Sendable () -> Void = { seen.withLock { $0.append(read(dest + "/report.json")) } }
            func write(_ tag: String, jobs: Int) throws {
                try ReportFolder.write(
                    streams: files(tag).map { file in
                        (file.name, { (sink: inout FileSink) in sink.append(bytes: file.bytes) })
                    },
                    to: dest, replaceable: ReportWriter.replaceableNames, jobs: jobs, whenInPlace: look)
            }
            try write("first", jobs: 1)
            try write("second", jobs: 1)
            try write("third", jobs: 2)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: dest + "/notes.txt"))
            try write("fourth", jobs: 2)
            #expect(
                seen.withLock { $0 }
                    == ["first report.json\n", "second report.json\n", "third report.json\n", "fourth report.json\n"])
            #expect(throws: OutputError.self) {
                try ReportFolder.write(
                    streams: [("../escape", { (sink: inout FileSink) in sink.append(bytes: [1]) })], to: dest,
                    replaceable: ReportWriter.replaceableNames, jobs: 2, whenInPlace: look)
            }
            #expect(seen.withLock { $0.count } == 4, "not called for a failed write")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out"], "no temporaries left")
        }
    }

    @Test func failedWriteLeavesTheOldReportIntact() throws {
        try withScratch { dir in
            let dest = dir + "/out"
            try ReportFolder.write(files: files("old"), to: dest, replaceable: ReportWriter.replaceableNames)
            // A bad file name fails midway, after some files went into the temporary folder.
            let bad = files("new") + [(name: "../escape", bytes: [1])]
            #expect(throws: OutputError.self) {
                try ReportFolder.write(files: bad, to: dest, replaceable: ReportWriter.replaceableNames)
            }
            for name in ReportWriter.fileNames { #expect(read(dest + "/" + name) == "old \(name)\n") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out"])
        }
    }

    @Test func interruptedRunLeftoversAreCleanedAndNeverAtTheDestination() throws {
        try withScratch { dir in
            // Simulate a crashed writer: a half-written temporary of a process that is gone.
            let deadPID: Int32 = 2_147_483_000
            let stale = dir + "/.out.tmp-\(deadPID)-1"
            try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
            try Data("half".utf8).write(to: URL(fileURLWithPath: stale + "/report.json"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
            try ReportFolder.write(files: files("x"), to: dir + "/out", replaceable: ReportWriter.replaceableNames)
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(read(dir + "/out/report.json") == "x report.json\n")
        }
    }

    @Test func killedMidSwapRestoresTheOldReportBeforeWriting() throws {
        try withScratch { dir in
            // State after a kill between "rename dest aside" and "rename new in".
            let aside = dir + "/.out.old-2147483000-1"
            try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
            try Data("old".utf8).write(to: URL(fileURLWithPath: aside + "/report.json"))
            try Data("unrelated".utf8).write(to: URL(fileURLWithPath: aside + "/report.md"))
            // A failing write still restores the old folder first and leaves it in place.
            #expect(throws: OutputError.self) {
                try ReportFolder.write(
                    files: [(name: "a/b", bytes: [])], to: dir + "/out", replaceable: ReportWriter.replaceableNames)
            }
            #expect(read(dir + "/out/report.json") == "old")
            #expect(!FileManager.default.fileExists(atPath: aside))
        }
    }

    @Test func preflightNamesTheUnwritablePath() throws {
        try withScratch { dir in
            let locked = dir + "/locked"
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked) }
            let isRoot = getuid() == 0  // root ignores permission bits; use a file as parent instead
            let target = isRoot ? dir + "/plainfile/out" : locked + "/out"
            if isRoot { try Data().write(to: URL(fileURLWithPath: dir + "/plainfile")) }
            do {
                try ReportFolder.preflight(destination: target, replaceable: ReportWriter.replaceableNames)
                Issue.record("preflight accepted \(target)")
            } catch {
                #expect(String(describing: error).contains(target))
                #expect(error is OutputError)
            }
        }
    }

    @Test func refusesToReplaceAForeignFolderOrAFile() throws {
        try withScratch { dir in
            let home = dir + "/home"
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try Data("precious".utf8).write(to: URL(fileURLWithPath: home + "/thesis.tex"))
            #expect(throws: OutputError.foreignContent(path: home, names: ["thesis.tex"])) {
                try ReportFolder.write(files: files("x"), to: home, replaceable: ReportWriter.replaceableNames)
            }
            #expect(read(home + "/thesis.tex") == "precious")
            try Data().write(to: URL(fileURLWithPath: dir + "/afile"))
            #expect(throws: OutputError.notADirectory(path: dir + "/afile")) {
                try ReportFolder.preflight(destination: dir + "/afile", replaceable: ReportWriter.replaceableNames)
            }
        }
    }
}

/// Ownership by proof: the marker FenceLab writes, not file names, makes a folder FenceLab's.
@Suite struct ReportFolderOwnershipTests {
    private func marker(_ dir: String) -> String? { read(dir + "/" + ReportFolder.markerName) }

    @Test func everyFolderHoldsAMarkerListingItsFilesSorted() throws {
        try withScratch { dir in
            let dest = dir + "/out"
            try ReportFolder.write(files: files("x"), to: dest, replaceable: ReportWriter.replaceableNames)
            #expect(
                marker(dest)
                    == #"{"format":"fencelab-report-folder/1","tool":"fencelab","files":["index.html","junit.xml","report.json","report.md"]}"#
                    + "\n")
        }
    }

    @Test func filesFenceLabDidNotWriteStayAndItsOwnAreReplaced() throws {
        try withScratch { dir in
            let dest = dir + "/out"
            try ReportFolder.write(files: files("old"), to: dest, replaceable: ReportWriter.replaceableNames)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: dest + "/notes.txt"))
            // The new report has one file fewer: the one no longer written is FenceLab's and goes.
            let fewer = files("new").filter { $0.name != "report.md" }
            try ReportFolder.write(files: fewer, to: dest, replaceable: ReportWriter.replaceableNames)
            #expect(read(dest + "/notes.txt") == "mine")
            #expect(read(dest + "/report.json") == "new report.json\n")
            #expect(!FileManager.default.fileExists(atPath: dest + "/report.md"))
            #expect(marker(dest)?.contains(#"["index.html","junit.xml","report.json"]"#) == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out"], "no temporaries left")
        }
    }

    @Test func aFolderWithReportNamesButNoMarkerIsRefusedNotReplaced() throws {
        try withScratch { dir in
            let dest = dir + "/u"
            try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: dest + "/index.html"))
            #expect(throws: OutputError.unmarkedReport(path: dest, names: ["index.html"])) {
                try ReportFolder.write(files: files("x"), to: dest, replaceable: ReportWriter.replaceableNames)
            }
            #expect(read(dest + "/index.html") == "mine")
            let message = OutputError.unmarkedReport(path: dest, names: ["index.html"]).description
            #expect(message.contains("index.html") && message.contains(ReportFolder.markerName))
        }
    }

    @Test func aMarkerOfAnotherKindOfReportOrAForgedOneIsRefused() throws {
        try withScratch { dir in
            let dest = dir + "/o"
            try ReportFolder.write(
                files: [(name: "sweep.json", bytes: [])], to: dest, replaceable: ["sweep.json"])
            #expect(throws: OutputError.otherReport(path: dest, names: ["sweep.json"])) {
                try ReportFolder.write(files: files("x"), to: dest, replaceable: ReportWriter.replaceableNames)
            }
            #expect(FileManager.default.fileExists(atPath: dest + "/sweep.json"))
            try Data(#"{"format":"fencelab-report-folder/1","tool":"fencelab","files":["../x"]}"#.utf8)
                .write(to: URL(fileURLWithPath: dest + "/" + ReportFolder.markerName))
            do throws(OutputError) {
                try ReportFolder.preflight(destination: dest, replaceable: ReportWriter.replaceableNames)
                Issue.record("a marker listing ../x was accepted")
            } catch {
                guard case .badMarker(let path, _) = error, path == dest else { throw error }
            }
        }
    }

    @Test func anEmptyFolderIsTaken() throws {
        try withScratch { dir in
            let dest = dir + "/empty"
            try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: true)
            try ReportFolder.write(files: files("x"), to: dest, replaceable: ReportWriter.replaceableNames)
            #expect(read(dest + "/report.json") == "x report.json\n")
        }
    }

    @Test func aSecondHolderOfTheLockIsRefusedWithThePid() throws {
        try withScratch { dir in
            let dest = dir + "/o"
            let lock = try OutputLock.acquire(destination: dest)
            // Re-entrant in this process; the lock file names the holder.
            try ReportFolder.write(files: files("x"), to: dest, replaceable: ReportWriter.replaceableNames)
            #expect(read(OutputLock.lockPath(destination: dest)) == "\(getpid())\n")
            lock.release()
            #expect(!FileManager.default.fileExists(atPath: OutputLock.lockPath(destination: dest)))
        }
    }
}

@Suite struct OutputProgressTests {
    final class Box: @unchecked Sendable {
        let lock = NSLock()
        var text = ""
        var now = 0.0
        func append(_ s: String) {
            lock.lock()
            text += s
            lock.unlock()
        }
    }

    @Test func lineAndETA() {
        #expect(
            ProgressReporter.line(scenario: 2, of: 8, replicate: 13, of: 20, done: 33, total: 160, elapsed_s: 33)
                == "scenario 2/8, replicate 13/20, ETA 2:07")
        #expect(
            ProgressReporter.line(scenario: 1, of: 1, replicate: 0, of: 5, done: 0, total: 5, elapsed_s: 0).hasSuffix(
                "ETA --"))
        #expect(ProgressReporter.duration(3725.2) == "1:02:06")
        #expect(ProgressReporter.duration(0) == "0:00")
    }

    /// After a resume the ETA comes from the items this process evaluated, not from the resumed ones.
    @Test func etaAfterResumeUsesOnlyItemsEvaluatedHere() {
        let box = Box()
        let p = ProgressReporter(
            scenarios: 1, totalWorkItems: 100, alreadyDone: 50, force: true, isTerminal: false,
            minimumInterval_s: 0,
            clock: {
                box.lock.lock()
                defer { box.lock.unlock() }
                return box.now
            },
            sink: { box.append($0) })
        box.now = 10
        p.advance(by: 10, unit: "items")  // 10 items in 10 s, 40 left: 40 s (not 10 · 40/60 ≈ 7 s)
        box.now = 30
        p.advance(by: 10, unit: "items")  // 20 in 30 s, 30 left: 45 s
        #expect(box.text == "items 60/100, ETA 0:40\nitems 70/100, ETA 0:45\n")
        #expect(ProgressReporter.eta(elapsed_s: 5, doneHere: 0, remaining: 10) == "--")
        #expect(ProgressReporter.eta(elapsed_s: .nan, doneHere: 3, remaining: 10) == "--")
    }

    @Test func silentWithoutTerminalUnlessForced() {
        let box = Box()
        let quiet = ProgressReporter(scenarios: 1, totalWorkItems: 3, isTerminal: false, sink: { box.append($0) })
        quiet.completed(scenario: 1, replicate: 1, of: 3)
        quiet.finish()
        #expect(box.text.isEmpty && !quiet.isEnabled)
        let forced = ProgressReporter(
            scenarios: 1, totalWorkItems: 1, force: true, isTerminal: false, sink: { box.append($0) })
        forced.completed(scenario: 1, replicate: 1, of: 1)
        #expect(box.text == "scenario 1/1, replicate 1/1, ETA 0:00\n")
    }

    @Test func throttledOnATerminalAndFinalUpdateAlwaysShown() {
        let box = Box()
        let p = ProgressReporter(
            scenarios: 1, totalWorkItems: 4, isTerminal: true, minimumInterval_s: 1,
            clock: {
                box.lock.lock()
                defer { box.lock.unlock() }
                return box.now
            },
            sink: { box.append($0) })
        box.now = 0.1
        p.completed(scenario: 1, replicate: 1, of: 4)  // shown (first)
        box.now = 0.5
        p.completed(scenario: 1, replicate: 2, of: 4)  // throttled
        box.now = 0.9
        p.completed(scenario: 1, replicate: 3, of: 4)  // throttled
        box.now = 1.0
        p.completed(scenario: 1, replicate: 4, of: 4)  // final: shown
        p.finish()
        let updates = box.text.components(separatedBy: "\r").filter { !$0.isEmpty }
        #expect(updates.count == 2)
        #expect(updates[0].hasPrefix("scenario 1/1, replicate 1/4"))
        #expect(updates[1].hasPrefix("scenario 1/1, replicate 4/4, ETA 0:00"))
        #expect(box.text.hasSuffix("\n"))
    }
}
