import CZlib

/// A gzip stream (RFC 1952) through the system's zlib, for `FileSink.startGzip`. The bytes are a
/// pure function of the input and the zlib build: the header carries no time stamp (0), no file
/// name, operating system 255 ("unknown", so a Mac and Linux write the same header), and the
/// level is fixed (`level`).
package final class GzipStream {
    /// zlib's level 6 (its default): the size/time balance `gzip` itself uses.
    package static let level: Int32 = 6
    /// Output bytes produced per `deflate` call.
    static let chunkBytes = 1 << 16

    private let stream: UnsafeMutablePointer<z_stream>
    private let header: UnsafeMutablePointer<gz_header>
    private var output: [UInt8]
    private let path: String

    /// - Throws: `OutputError.io` naming `path` when zlib cannot be set up (out of memory, a
    ///   zlib without gzip support).
    package init(path: String) throws(OutputError) {
        self.path = path
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        header = .allocate(capacity: 1)
        header.initialize(to: gz_header())
        output = [UInt8](repeating: 0, count: Self.chunkBytes)
        var status = fl_deflate_init_gzip(stream, Self.level)
        if status == Z_OK {
            header.pointee.time = 0
            header.pointee.os = 255
            status = deflateSetHeader(stream, header)
        }
        guard status == Z_OK else {
            stream.deallocate()
            header.deallocate()
            throw .io(path: path, operation: "compress", reason: "zlib could not start a gzip stream (\(status))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        header.deallocate()
    }

    /// Compresses `bytes` and passes what zlib produced to `write` (possibly nothing);
    /// `finish` ends the stream (the last block and the CRC-32 and length trailer).
    package func compress(
        _ bytes: [UInt8], finish: Bool, write: ([UInt8]) throws(OutputError) -> Void
    ) throws(OutputError) {
        var input = bytes
        let count = input.count
        try input.withUnsafeMutableBufferPointer { (inBuffer) throws(OutputError) in
            stream.pointee.next_in = inBuffer.baseAddress
            stream.pointee.avail_in = UInt32(count)
            while true {
                let (status, produced) = output.withUnsafeMutableBufferPointer { out in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = UInt32(out.count)
                    let status = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    return (status, out.count - Int(stream.pointee.avail_out))
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw .io(path: path, operation: "compress", reason: "zlib deflate failed (\(status))")
                }
                if produced > 0 { try write(Array(output[0..<produced])) }
                if finish ? status == Z_STREAM_END : stream.pointee.avail_in == 0 && produced < output.count {
                    break
                }
            }
            stream.pointee.next_in = nil
        }
    }
}
