import Foundation

/// A JSON key/value store on disk: one `<key>.json` file per key in a directory of its own.
///
/// Writes are atomic (a temporary file renamed into place): a crash or a full disk leaves the earlier value, never half
/// a file. Keys are plain names, so no key can reach outside the directory. The directory is created
/// on the first write. Exposed to plugins by ``PluginDependencies/exposeStorage(_:)``.
public struct KeyValueStorage: Sendable {
    /// Where the values live.
    public let directory: URL

    /// A storage keeping one `<key>.json` file per key in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The value stored under `key`; nil when there is none.
    public func read(_ key: String) throws(StorageError) -> JSONValue? {
        let file = try url(for: key)
        let data: [UInt8]
        do throws(FileReadError) {
            data = try FileReader.bytes(at: file.path)
        } catch  where error.problem == .missing {
            return nil
        } catch {
            throw StorageError(.unreadable, key: key, message: error.description)
        }
        do {
            return try JSONValue(json: data)
        } catch {
            throw StorageError(.unreadable, key: key, message: "\(file.path) is not valid JSON: \(error)")
        }
    }

    /// Stores `value` under `key`, replacing what was there; a nil value removes the key.
    public func write(_ key: String, _ value: JSONValue?) throws(StorageError) {
        let file = try url(for: key)
        guard let value else {
            do {
                try FileManager.default.removeItem(at: file)
            } catch CocoaError.fileNoSuchFile {
                // Already absent: removing is done.
            } catch {
                throw StorageError(
                    .unwritable, key: key,
                    message: "cannot remove \(file.path): \(error.localizedDescription)")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try AtomicFile.write(Data(value.jsonString().utf8), to: file)
        } catch let error as AtomicFileError {
            throw StorageError(.unwritable, key: key, message: error.description)
        } catch {
            throw StorageError(
                .unwritable, key: key, message: "cannot write \(file.path): \(error.localizedDescription)")
        }
    }

    /// The file for `key`, once the key is known to be a plain name.
    private func url(for key: String) throws(StorageError) -> URL {
        guard Self.isValid(key: key) else {
            throw StorageError(
                .invalidKey, key: key,
                message:
                    "invalid storage key \"\(key)\": use 1 to 128 letters, digits, '_', '-' or '.', not starting with '.'"
            )
        }
        return directory.appendingPathComponent("\(key).json")
    }

    /// Whether `key` is a plain name: no separators, no `..`, no hidden or temporary files.
    public static func isValid(key: String) -> Bool {
        (1...128).contains(key.utf8.count) && !key.hasPrefix(".")
            && key.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0))
            }
    }
}

/// Why a ``KeyValueStorage`` call failed, in one line.
public struct StorageError: Error, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The key is not a plain name (it could reach outside the storage directory).
        case invalidKey
        /// The stored file exists but cannot be read or is not JSON.
        case unreadable
        /// The value could not be stored.
        case unwritable
    }

    /// What went wrong.
    public var kind: Kind
    /// The key the call was about.
    public var key: String
    /// Why, in one line.
    public var message: String

    init(_ kind: Kind, key: String, message: String) {
        self.kind = kind
        self.key = key
        self.message = message
    }

    public var description: String { message }
}
