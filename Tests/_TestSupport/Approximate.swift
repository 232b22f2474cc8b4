import Foundation

/// True when |a − b| ≤ tolerance (absolute, in the unit of the values).
/// The tolerance is always explicit at the call site, never baked into `==`.
public func isClose(_ a: Double, _ b: Double, absoluteTolerance: Double) -> Bool {
    abs(a - b) <= absoluteTolerance
}

/// True when |a − b| ≤ tolerance · max(|a|, |b|).
public func isClose(_ a: Double, _ b: Double, relativeTolerance: Double) -> Bool {
    abs(a - b) <= relativeTolerance * max(abs(a), abs(b))
}

/// Paths of the package and of built products, for tests that run the binary.
public enum TestPaths {
    /// The package root (the folder holding Package.swift).
    public static var packageRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }

    /// The folder of built products (next to the test bundle).
    public static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") || dir.path.contains(".xctest/") {
            while !dir.lastPathComponent.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
            dir.deleteLastPathComponent()
        }
        return dir
    }

    /// A built executable product by name, e.g. `fencelab`.
    public static func product(_ name: String) -> URL {
        productsDirectory.appendingPathComponent(name)
    }
}

/// Result of running a process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Everything `handle` gives until the end of the file, `read(2)` by `read(2)`, retrying a read
/// that a signal interrupts. Foundation's `readDataToEndOfFile()` stops the whole test process
/// when a read fails, and the signal tests' handlers interrupt other tests' reads (`EINTR`).
public func readToEnd(_ handle: FileHandle) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    let fd = handle.fileDescriptor
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            data.append(contentsOf: buffer[0..<n])
        } else if n < 0, errno == EINTR {
            continue
        } else {
            return data
        }
    }
}

/// Runs an executable with arguments, waits, and captures both streams.
/// With `deadline_s`, a child still running after that many seconds is killed (SIGKILL), so a
/// regression that hangs fails its test (status 9, `uncaughtSignal`) instead of hanging the suite.
public func runProcess(
    _ executable: URL, _ arguments: [String], currentDirectory: URL? = nil,
    stdin: Data? = nil, deadline_s: Double? = nil
) throws -> ProcessResult {
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    if let currentDirectory { p.currentDirectoryURL = currentDirectory }
    let out = Pipe()
    let err = Pipe()
    let inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    if let deadline_s {
        let pid = p.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline_s) { [p] in
            if p.isRunning { kill(pid, SIGKILL) }
        }
    }
    if let stdin { inp.fileHandleForWriting.write(stdin) }
    try? inp.fileHandleForWriting.close()
    // Read both pipes concurrently so a large output cannot deadlock.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = readToEnd(err.fileHandleForReading)
        group.leave()
    }
    let outData = readToEnd(out.fileHandleForReading)
    group.wait()
    p.waitUntilExit()
    return ProcessResult(
        status: p.terminationStatus,
        stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs the built `fencelab` binary.
public func runFencelab(
    _ arguments: [String], currentDirectory: URL? = nil, stdin: Data? = nil,
    deadline_s: Double? = nil
) throws -> ProcessResult {
    try runProcess(
        TestPaths.product("fencelab"), arguments,
        currentDirectory: currentDirectory ?? TestPaths.packageRoot, stdin: stdin, deadline_s: deadline_s)
}
