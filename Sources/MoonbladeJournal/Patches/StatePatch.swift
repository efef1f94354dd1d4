import Foundation
import MoonbladeHost

/// What one dispatch changed in the state: the paths that changed and their new values.
///
/// Computed from the JSON form of the old and new state, descending only into what differs (equal
/// subtrees that share storage compare at once). Arrays change element by element; elements added at
/// the end are set at their index, elements cut from the end removed from the last one down.
public struct StatePatch: Sendable, Hashable {
    /// One change: the value at `path` became `value`, or was removed when `value` is nil.
    public struct Change: Sendable, Hashable {
        /// Where the value changed: the steps from the state's root, none for the whole state.
        public var path: [PathElement]
        /// The new value at ``path``; nil when the value there was removed.
        public var value: JSONValue?

        /// A change that sets the value at `path` to `value`, or removes it when `value` is nil.
        public init(path: [PathElement], value: JSONValue?) {
            self.path = path
            self.value = value
        }
    }

    /// A step into a JSON value: an object member or an array element (0-based).
    public enum PathElement: Sendable, Hashable, CustomStringConvertible {
        /// The member of an object with this key.
        case key(String)
        /// The element of an array at this 0-based index.
        case index(Int)

        public var description: String {
            switch self {
            case .key(let key): key
            case .index(let index): "[\(index)]"
            }
        }
    }

    /// The changes, in the order they are applied.
    public var changes: [Change]

    /// A patch that makes `changes` in order.
    public init(changes: [Change] = []) {
        self.changes = changes
    }

    /// The changes that turn `old` into `new`.
    public init(from old: JSONValue, to new: JSONValue) {
        changes = []
        var path: [PathElement] = []
        Self.diff(old, new, path: &path, into: &changes)
    }

    /// Whether the patch changes nothing.
    public var isEmpty: Bool { changes.isEmpty }

    private static func diff(_ old: JSONValue, _ new: JSONValue, path: inout [PathElement], into changes: inout [Change]) {
        switch (old, new) {
        case (.object(let before), .object(let after)):
            guard before != after else { return }
            let start = changes.count
            var kept = 0
            for (key, value) in after.sorted(by: { $0.key < $1.key }) {
                path.append(.key(key))
                if let earlier = before[key] {
                    kept += 1
                    diff(earlier, value, path: &path, into: &changes)
                } else {
                    changes.append(Change(path: path, value: value))
                }
                path.removeLast()
            }
            // Removals come first; there are some only when not every key of `before` was met above
            // (usually none: no second pass over the keys).
            if kept < before.count {
                let removed = before.keys.filter { after[$0] == nil }.sorted().map { Change(path: path + [.key($0)], value: nil) }
                changes.insert(contentsOf: removed, at: start)
            }
        case (.array(let before), .array(let after)):
            guard before != after else { return }
            for index in 0..<min(before.count, after.count) {
                path.append(.index(index))
                diff(before[index], after[index], path: &path, into: &changes)
                path.removeLast()
            }
            for index in (after.count..<max(before.count, after.count)).reversed() {
                changes.append(Change(path: path + [.index(index)], value: nil))
            }
            for index in before.count..<max(before.count, after.count) where index < after.count {
                changes.append(Change(path: path + [.index(index)], value: after[index]))
            }
        default:
            if !old.isSameValue(as: new) {
                changes.append(Change(path: path, value: new))
            }
        }
    }

    /// `state` with every change made, in order.
    ///
    /// - Throws: ``StatePatchError`` when a path does not fit the state (the patch belongs to another one).
    public func applied(to state: JSONValue) throws(StatePatchError) -> JSONValue {
        var result = state
        for change in changes {
            try Self.apply(change, at: change.path[...], to: &result)
        }
        return result
    }

    private static func apply(_ change: Change, at path: ArraySlice<PathElement>, to value: inout JSONValue)
        throws(StatePatchError)
    {
        guard let first = path.first else {
            guard let newValue = change.value else { throw StatePatchError(change: change, problem: "removes the root") }
            value = newValue
            return
        }
        let rest = path.dropFirst()
        switch (first, value) {
        case (.key(let key), .object(var members)):
            value = .null  // lets `members` be changed in place
            defer { value = .object(members) }
            if rest.isEmpty {
                members[key] = change.value
            } else {
                guard var member = members[key] else { throw StatePatchError(change: change, problem: "\(key) is missing") }
                members[key] = nil
                defer { members[key] = member }
                try apply(change, at: rest, to: &member)
            }
        case (.index(let index), .array(var elements)):
            value = .null
            defer { value = .array(elements) }
            if rest.isEmpty {
                switch change.value {
                case let newValue? where index < elements.count: elements[index] = newValue
                case let newValue? where index == elements.count: elements.append(newValue)
                case nil where index == elements.count - 1: elements.removeLast()
                default: throw StatePatchError(change: change, problem: "index \(index) of an array of \(elements.count)")
                }
            } else {
                guard elements.indices.contains(index) else {
                    throw StatePatchError(change: change, problem: "index \(index) of an array of \(elements.count)")
                }
                try apply(change, at: rest, to: &elements[index])
            }
        default:
            throw StatePatchError(change: change, problem: "\(first) steps into \(value.kindName)")
        }
    }
}

/// A patch that does not fit the state it is applied to.
public struct StatePatchError: Error, CustomStringConvertible {
    /// The first change that does not fit.
    public var change: StatePatch.Change
    /// Why it does not fit, for people: `index 5 of an array of 3`, `todos is missing`.
    public var problem: String

    public var description: String { "the change at \(StatePatch.describe(change.path)) does not fit: \(problem)" }
}

extension StatePatch {
    /// A path as a plugin author reads it: `todos[3].done`, positions counted from 1 as Lua counts
    /// them (the third todo, `.index(2)`); the root is `state`.
    public static func describe(_ path: [PathElement]) -> String {
        var text = ""
        for element in path {
            switch element {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index + 1)]"
            }
        }
        return text.isEmpty ? "state" : text
    }
}

extension JSONValue {
    /// Equality that takes an integer and a float with the same value as the same number, as JSON does.
    func isSameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.integer(let integer), .double(let double)), (.double(let double), .integer(let integer)):
            Double(integer) == double
        default:
            self == other
        }
    }

    /// What kind of value this is, for messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
