/// The shape of a value as Lua sees it through the Codable mapping, for editor types: what a
/// dependency takes and returns, what a typed state holds.
public indirect enum LuaShape: Sendable, Equatable {
    case string, integer, number, boolean
    /// Anything: the shape could not be found (or is dynamic, as `JSONValue`).
    case any
    /// A sequence of elements.
    case array(LuaShape)
    /// A table with string keys of one element shape (a Swift dictionary).
    case map(LuaShape)
    /// A table with named fields: a Swift struct or class, named after its type.
    case object(name: String, fields: [Field])
    /// The value may be nil.
    case optional(LuaShape)

    /// A named field of an ``object(name:fields:)``.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var shape: LuaShape
    }

    /// The shape `T` decodes from, found by decoding it from a probe that answers every question
    /// with a placeholder and records what was asked.
    public static func of<T: Decodable>(_ type: T.Type) -> LuaShape {
        ShapeProbe.shape(of: type)
    }

    /// How LuaLS spells the shape; an object is its class name (see ``objects``).
    var luaType: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .any: "any"
        case .array(let element): element.isSimple ? "\(element.luaType)[]" : "(\(element.luaType))[]"
        case .map(let element): "table<string, \(element.luaType)>"
        case .object(let name, _): name
        case .optional(let wrapped): wrapped.isSimple ? "\(wrapped.luaType)?" : "(\(wrapped.luaType))?"
        }
    }

    var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }

    private var isSimple: Bool {
        switch self {
        case .optional, .array: false
        default: true
        }
    }

    /// Every object in the shape, nested ones included, each once, outermost first.
    var objects: [(name: String, fields: [Field])] {
        var found: [(name: String, fields: [Field])] = []
        collect(into: &found)
        return found
    }

    private func collect(into found: inout [(name: String, fields: [Field])]) {
        switch self {
        case .object(let name, let fields):
            guard !found.contains(where: { $0.name == name }) else { return }
            found.append((name, fields))
            for field in fields { field.shape.collect(into: &found) }
        case .array(let inner), .map(let inner), .optional(let inner):
            inner.collect(into: &found)
        default:
            break
        }
    }
}
