/// The shape of a value as Lua sees it through the Codable mapping, for editor types: what a
/// dependency takes and returns, what a typed state holds.
public indirect enum LuaShape: Sendable, Equatable {
    /// A Lua string: a Swift `String`, `URL` or `UUID`.
    case string
    /// A Lua integer: any Swift integer type.
    case integer
    /// A Lua number that may have a fraction: a Swift `Double`, `Float`, `Date` or `Decimal`.
    case number
    /// A Lua boolean: a Swift `Bool`.
    case boolean
    /// Anything: the shape could not be found (or is dynamic, as `JSONValue`).
    case any
    /// A sequence of elements.
    case array(LuaShape)
    /// A table with string keys of one element shape (a Swift dictionary).
    case map(LuaShape)
    /// A table with integer keys of one element shape (a Swift dictionary keyed by `Int`).
    case integerKeyedMap(LuaShape)
    /// A table with named fields: a Swift struct or class, named after its type.
    case object(name: String, fields: [Field])
    /// A Swift type whose fields are known only up to one the probe could not decode (an enum with
    /// raw values that is not `CaseIterable`, a validating initializer): the fields after it are not,
    /// so any key may hold anything. (The definitions once ended the type there, silently.)
    case partialObject(name: String, fields: [Field])
    /// The value may be nil.
    case optional(LuaShape)
    /// Any one of the shapes: a dependency that takes a message or a table (`log.info`).
    case oneOf([LuaShape])

    /// A named field of an ``object(name:fields:)``.
    public struct Field: Sendable, Equatable {
        /// The field's key in the Lua table.
        public var name: String
        /// What the field holds (``LuaShape/optional(_:)`` when it may be nil).
        public var shape: LuaShape
    }

    /// The shape `T` decodes from, found by decoding it from a probe that answers every question
    /// with a placeholder and records what was asked.
    public static func of<T: Decodable>(_ type: T.Type) -> LuaShape {
        ShapeProbe.shape(of: type)
    }

    /// How LuaLS spells the shape; an object is its class name (see ``objects``).
    var luaType: String { luaType(naming: { $0 }) }

    /// How LuaLS spells the shape, an object by the class name `naming` gives its type's name. (Named
    /// as it is written, not by replacing names in the text: `Item` inside `ItemList` or `Box<Item>`
    /// made names no class has.)
    func luaType(naming: (String) -> String) -> String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .any: "any"
        case .array(let element):
            element.isSimple ? "\(element.luaType(naming: naming))[]" : "(\(element.luaType(naming: naming)))[]"
        case .map(let element): "table<string, \(element.luaType(naming: naming))>"
        case .integerKeyedMap(let element): "table<integer, \(element.luaType(naming: naming))>"
        case .object(let name, _), .partialObject(let name, _): naming(name)
        case .optional(let wrapped):
            wrapped.isSimple ? "\(wrapped.luaType(naming: naming))?" : "(\(wrapped.luaType(naming: naming)))?"
        case .oneOf(let shapes): shapes.map { $0.luaType(naming: naming) }.joined(separator: "|")
        }
    }

    /// `shape` that may be nil, wrapped once: a Swift `String??` is a Lua string or nil all the same.
    static func optional(of shape: LuaShape) -> LuaShape {
        shape.isOptional ? shape : .optional(shape)
    }

    var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }

    private var isSimple: Bool {
        switch self {
        case .optional, .array, .oneOf: false
        default: true
        }
    }

    /// An object in the shape: its type's name, its fields, and whether they are all of them.
    typealias Object = (name: String, fields: [Field], isComplete: Bool)

    /// Every object in the shape, nested ones included, each once, outermost first.
    var objects: [Object] {
        var found: [Object] = []
        collect(into: &found)
        return found
    }

    private func collect(into found: inout [Object]) {
        switch self {
        case .object(let name, let fields), .partialObject(let name, let fields):
            guard !found.contains(where: { $0.name == name }) else { return }
            if case .object = self { found.append((name, fields, true)) } else { found.append((name, fields, false)) }
            for field in fields { field.shape.collect(into: &found) }
        case .array(let inner), .map(let inner), .integerKeyedMap(let inner), .optional(let inner):
            inner.collect(into: &found)
        case .oneOf(let shapes):
            for shape in shapes { shape.collect(into: &found) }
        default:
            break
        }
    }
}
