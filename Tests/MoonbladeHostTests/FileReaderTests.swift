import Foundation
import MoonbladeHost
import MoonbladeTestSupport
import Testing

/// The one reader of state files, plugin sources, specs and stored values: what it reads, and its
/// one wording for what it cannot (`cannot read <path>: <what>`).
@Suite("FileReader")
struct FileReaderTests {
    let scratch = ScratchDirectory()

    func path(_ name: String) -> String { scratch.url.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: scratch.url.appendingPathComponent(name))
    }

    @Test func aFileIsReadWhole() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try write("blob", bytes)
        #expect(try FileReader.bytes(at: path("blob")) == bytes)
        try write("empty", [])
        #expect(try FileReader.bytes(at: path("empty")) == [])
    }

    @Test func eachProblemIsNamedWithThePath() throws {
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try write("file", Array("{}".utf8))
        try FileManager.default.createSymbolicLink(atPath: path("dangling"), withDestinationPath: path("nowhere"))
        let cases: [(String, FileReadError.Problem, String)] = [
            (path("missing"), .missing, "no such file"),
            (path("dangling"), .missing, "no such file"),
            (path("folder"), .folder, "it is a folder"),
            (path("file") + "/inside", .system(ENOTDIR), "Not a directory"),
            // Readable by name, refused by the system when read: no error of a kind of its own.
            ("/proc/self/mem", .system(EIO), "Input/output error"),
        ]
        for (path, problem, what) in cases {
            let error = #expect(throws: FileReadError.self) { try FileReader.bytes(at: path) }
            #expect(error?.problem == problem, "\(path)")
            #expect(error?.description == "cannot read \(path): \(what)")
            #expect(error?.line == nil)
        }
    }

    @Test func aFileLargerThanTheLimitIsRefusedGrowingOrNot() throws {
        try write("big", [UInt8](repeating: 7, count: 1001))
        try write("fits", [UInt8](repeating: 7, count: 1000))
        let big = #expect(throws: FileReadError.self) { try FileReader.bytes(at: path("big"), limit: 1000) }
        #expect(big?.description == "cannot read \(path("big")): it is larger than 1000 bytes")
        #expect(try FileReader.bytes(at: path("fits"), limit: 1000).count == 1000)
        // Its size is 0 while it holds more: only counting what is read stops it.
        let unsized = #expect(throws: FileReadError.self) { try FileReader.bytes(at: "/proc/self/maps", limit: 100) }
        #expect(unsized?.problem == .tooBig(limit: 100))
    }

    @Test func aFileWhoseSizeSaysNothingIsReadWhole() throws {
        // Listed as 0 bytes, it holds a line per mapping: more than the first room made for it.
        let maps = try FileReader.text(at: "/proc/self/maps")
        #expect(maps.count { $0 == "\n" } > 10)
        #expect(maps.hasSuffix("\n"))
    }

    /// A FIFO, a socket or a device where a file belongs is refused at once, without waiting for a
    /// writer or reading without end; a link to one too.
    @Test func aFileThatIsNotRegularIsRefusedWithoutWaiting() async throws {
        let fifo = try UnwrittenFIFO(at: path("pipe"))
        try FileManager.default.createSymbolicLink(atPath: path("link-to-pipe"), withDestinationPath: fifo.path)
        close(try bindSocket(at: path("socket")))
        var cases: [(String, FileReadError.Problem, String)] = [
            (fifo.path, .special(.fifo), "a FIFO"),
            (path("link-to-pipe"), .special(.fifo), "a FIFO"),
            (path("socket"), .special(.socket), "a socket"),
            ("/dev/null", .special(.characterDevice), "a character device"),
            ("/dev/zero", .special(.characterDevice), "a character device"),
        ]
        var info = stat()
        if stat("/dev/loop0", &info) == 0, info.st_mode & S_IFMT == S_IFBLK {
            cases.append(("/dev/loop0", .special(.blockDevice), "a block device"))
        }
        for (path, problem, kind) in cases {
            let error = await fifo.returnsWithoutWaiting { () -> FileReadError? in
                do throws(FileReadError) {
                    _ = try FileReader.text(at: path, shownAs: "p/x.lua")
                    return nil
                } catch {
                    return error
                }
            }
            #expect(error?.problem == problem, "\(path)")
            #expect(error?.description == "cannot read p/x.lua: it is not a regular file (\(kind))")
        }
    }

    /// A Unix socket bound at `path`, as a server leaves one behind; returns its descriptor.
    func bindSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8.prefix($0.count - 1)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
        return descriptor
    }

    @Test func textLosesItsByteOrderMarkAndNamesItsFirstLineThatIsNotUTF8() throws {
        try write("marked.lua", [0xEF, 0xBB, 0xBF] + Array("return 'é'\n".utf8))
        #expect(try FileReader.text(at: path("marked.lua")) == "return 'é'\n")
        try write("latin1.lua", Array("-- one\n-- two\n-- caf".utf8) + [0xE9] + Array("\nreturn 1\n".utf8))
        let error = #expect(throws: FileReadError.self) { try FileReader.text(at: path("latin1.lua"), shownAs: "p/latin1.lua") }
        #expect(error?.problem == .notUTF8(line: 3))
        #expect(error?.line == 3)
        #expect(error?.description == "cannot read p/latin1.lua: line 3 is not UTF-8 text; save the file as UTF-8")
        // The bytes are not text, but they are what the file holds.
        #expect(try FileReader.bytes(at: path("latin1.lua")).count == 31)
    }

    @Test func aLinkIsFollowed() throws {
        try write("target.lua", Array("return 1".utf8))
        try FileManager.default.createSymbolicLink(atPath: path("link.lua"), withDestinationPath: path("target.lua"))
        #expect(try FileReader.text(at: path("link.lua")) == "return 1")
    }
}
