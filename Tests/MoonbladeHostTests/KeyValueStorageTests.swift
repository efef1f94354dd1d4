import Foundation
import MoonbladeHost
import Testing

@Suite("KeyValueStorage")
struct KeyValueStorageTests {
    let scratch = ScratchDirectory()
    var storage: KeyValueStorage { KeyValueStorage(directory: scratch.url.appendingPathComponent("data")) }

    @Test func aMissingKeyReadsAsNil() throws {
        #expect(try storage.read("todos") == nil)
    }

    @Test func aWrittenValueReadsBackFromAJSONFile() throws {
        let value: JSONValue = ["todos": [["title": "milk", "done": false]], "count": 1, "ratio": 0.5]
        try storage.write("todos", value)
        #expect(try storage.read("todos") == value)
        let text = try String(
            contentsOf: storage.directory.appendingPathComponent("todos.json"), encoding: .utf8)
        #expect(text == #"{"count":1,"ratio":0.5,"todos":[{"done":false,"title":"milk"}]}"#)
    }

    @Test func writingReplacesTheValueAndLeavesNoTemporaryFile() throws {
        try storage.write("orders", [1])
        try storage.write("orders", [1, 2])
        #expect(try storage.read("orders") == [1, 2])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: storage.directory.path) == ["orders.json"])
    }

    @Test func writingNilRemovesTheKey() throws {
        try storage.write("draft", "text")
        try storage.write("draft", nil)
        #expect(try storage.read("draft") == nil)
        try storage.write("never-written", nil)
    }

    @Test(arguments: [
        "../escape", "a/b", "/etc/passwd", ".hidden", "..", "", "sp ace", "ünï",
        String(repeating: "k", count: 129),
    ])
    func keysThatAreNotPlainNamesAreRefused(key: String) throws {
        #expect(!KeyValueStorage.isValid(key: key))
        let writeError = #expect(throws: StorageError.self) { try storage.write(key, "x") }
        #expect(writeError?.kind == .invalidKey)
        let readError = #expect(throws: StorageError.self) { try storage.read(key) }
        #expect(readError?.kind == .invalidKey)
        #expect(
            !FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("escape.json").path))
        #expect(!FileManager.default.fileExists(atPath: storage.directory.path))
    }

    @Test(arguments: ["todos", "orders-2026", "cart.v2", "A_b-9"])
    func plainNamesAreKeys(key: String) throws {
        try storage.write(key, true)
        #expect(try storage.read(key) == true)
    }

    @Test func aFolderWhereAValueBelongsIsReportedInTheReadersWords() throws {
        let folder = storage.directory.appendingPathComponent("todos.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let error = #expect(throws: StorageError.self) { try storage.read("todos") }
        #expect(error?.kind == .unreadable)
        #expect(error?.description == "cannot read \(folder.path): it is a folder")
    }

    @Test func aNamedPipeWhereAValueBelongsIsRefusedAtOnce() async throws {
        try FileManager.default.createDirectory(at: storage.directory, withIntermediateDirectories: true)
        let fifo = try UnwrittenFIFO(at: storage.directory.appendingPathComponent("todos.json").path)
        let storage = storage
        let error = await fifo.returnsWithoutWaiting { () -> StorageError? in
            do {
                _ = try storage.read("todos")
                return nil
            } catch {
                return error as? StorageError
            }
        }
        #expect(error?.kind == .unreadable)
        #expect(error?.description == "cannot read \(fifo.path): it is not a regular file (a FIFO)")
    }

    @Test func aValueLinkedFromElsewhereIsReadThroughTheLink() throws {
        try FileManager.default.createDirectory(at: storage.directory, withIntermediateDirectories: true)
        let target = scratch.url.appendingPathComponent("kept.json")
        try Data("[1, 2]".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(
            at: storage.directory.appendingPathComponent("todos.json"), withDestinationURL: target)
        #expect(try storage.read("todos") == [1, 2])
    }

    @Test func aFileThatIsNotJSONIsReportedNotReadAsNil() throws {
        try FileManager.default.createDirectory(at: storage.directory, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: storage.directory.appendingPathComponent("broken.json"))
        let error = #expect(throws: StorageError.self) { try storage.read("broken") }
        #expect(error?.kind == .unreadable)
        #expect(error?.description.contains("broken.json is not valid JSON") == true)
    }

    @Test func aWriteThatCannotBeDoneKeepsTheEarlierValue() throws {
        try storage.write("todos", ["kept"])
        // A directory where the new file would go: creating the temporary file works, the rename fails.
        let blocked = KeyValueStorage(directory: storage.directory)
        try FileManager.default.createDirectory(
            at: storage.directory.appendingPathComponent("blocked.json"), withIntermediateDirectories: true)
        let error = #expect(throws: StorageError.self) { try blocked.write("blocked", "new") }
        #expect(error?.kind == .unwritable)
        #expect(try storage.read("todos") == ["kept"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: storage.directory.path).sorted() == [
                "blocked.json", "todos.json",
            ])
    }
}

@Suite("AtomicFile")
struct AtomicFileTests {
    let scratch = ScratchDirectory()

    @Test func aFailedWriteLeavesNeitherAPartialFileNorATemporaryOne() throws {
        let missingDirectory = scratch.url.appendingPathComponent("missing/state.json")
        let error = #expect(throws: AtomicFileError.self) {
            try AtomicFile.write(Data("{}".utf8), to: missingDirectory)
        }
        #expect(
            error?.description.hasPrefix("cannot create a temporary file for \(missingDirectory.path)")
                == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    @Test func aRenameThatFailsLeavesTheTargetAndNoTemporaryFile() throws {
        let folder = scratch.url.appendingPathComponent("state.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let error = #expect(throws: AtomicFileError.self) { try AtomicFile.write(Data("{}".utf8), to: folder) }
        #expect(error?.description == "cannot replace \(folder.path): Is a directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["state.json"])
    }

    @Test func aLinkIsFollowedAndStays() throws {
        let target = scratch.url.appendingPathComponent("target.json")
        let link = scratch.url.appendingPathComponent("link.json")
        try Data("old".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try AtomicFile.write(Data("new".utf8), to: link)
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
    }

    func permissions(_ file: URL) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    }

    @Test func aNewFileGetsTheModeTheUmaskLeaves() throws {
        // The umask as the kernel reports it: setting it to read it would race with other tests.
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let umask = try #require(Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        let file = scratch.url.appendingPathComponent("state.json")
        try AtomicFile.write(Data("{}".utf8), to: file)
        #expect(try permissions(file) == 0o666 & ~umask)
        #expect(try String(contentsOf: file, encoding: .utf8) == "{}")
    }

    @Test(arguments: [0o600, 0o640, 0o755])
    func aReplacedFileKeepsItsMode(mode: Int) throws {
        let file = scratch.url.appendingPathComponent("state.json")
        try Data("old".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        try AtomicFile.write(Data("new".utf8), to: file)
        #expect(try permissions(file) == mode)
        #expect(try String(contentsOf: file, encoding: .utf8) == "new")
    }
}
