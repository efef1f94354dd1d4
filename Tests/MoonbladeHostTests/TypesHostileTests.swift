import Foundation
import MoonbladeTestSupport
import Testing

@testable import MoonbladeHost

/// Editor types from Swift types that are awkward in Lua: keys that are keywords or no names at all,
/// types named inside one another, recursion, enums with associated values, optionals of optionals,
/// dictionaries keyed by numbers, and a type of hundreds of fields. The definitions must stay LuaLS:
/// one annotation a line, keys quoted where they are no names, every class named declared.
@Suite struct TypesHostileTests {
    enum Kind: String, Codable, CaseIterable { case small, large }

    /// Not `CaseIterable`: no value of it can be made from a placeholder.
    enum Size: String, Codable { case small, large }

    struct Order: Codable {
        var note: String
        var size: Size
        var count: Int
    }

    enum Payment: Codable {
        case cash(amount: Int)
        case card(number: String, expires: String?)
        case none
    }

    struct Node: Codable {
        var label: String
        var children: [Node]
        var parent: Box<Node>?
    }

    final class Box<Value: Codable>: Codable {
        var value: Value
    }

    struct Item: Codable {
        var title: String
    }

    struct ItemList: Codable {
        var items: [Item]
    }

    struct Shelf: Codable {
        enum CodingKeys: String, CodingKey {
            case end, nilValue = "nil", dashed = "with-dash", spaced = "two words", digit = "1st", newline = "line\nbreak"
            case quote = "say \"hi\"", unicode = "café", kind, tree, lists, boxed, maybe, deep, byNumber, byKind
            case sparse, order
        }
        var end: Int
        var nilValue: Bool
        var dashed: String
        var spaced: Double
        var digit: Int
        var newline: String
        var quote: String
        var unicode: String
        var kind: Kind
        var tree: Node
        var lists: [ItemList]
        var boxed: Box<Item>
        var maybe: String??
        var deep: [[String?]?]
        var byNumber: [Int: String]
        var byKind: [Kind: Item]
        var sparse: [String: Int?]
        /// Last: a type the probe cannot make a value of ends what is known of its holder.
        var order: Order
    }

    /// Every line of `text` that is no LuaLS annotation, comment, declaration or blank line, and every
    /// class a type names that is not declared: what LuaLS would choke on or leave unknown.
    private func problems(in text: String) -> [String] {
        var problems: [String] = []
        var declared: Set<String> = []
        var named: Set<String> = []
        let builtins: Set<String> = [
            "string", "integer", "number", "boolean", "any", "table", "nil", "function", "fun", "unknown",
        ]
        let key = #"(?:[A-Za-z_][A-Za-z0-9_]*|\["(?:[^"\\\n]|\\.)*"\]|\[string\])"#
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let match = line.wholeMatch(of: /---@alias ([A-Za-z_][A-Za-z0-9_.]*) .+/) {
                declared.insert(String(match.1))
            } else if let match = line.wholeMatch(of: /---@class ([A-Za-z_][A-Za-z0-9_.]*)/) {
                declared.insert(String(match.1))
            } else if line.hasPrefix("---@field ") {
                let field = try! Regex("^---@field \(key)\\??( .+)$")
                guard let match = line.wholeMatch(of: field) else {
                    problems.append("field: \(line)")
                    continue
                }
                let type = String(match.output[1].substring ?? "")
                for name in type.matches(of: /[A-Za-z_][A-Za-z0-9_.]*/).map({ String($0.output) }) where name.hasPrefix("moonblade.") {
                    named.insert(name)
                }
                if type.contains("<") && !type.contains("table<") && !type.contains("fun(") { problems.append("generic: \(line)") }
            } else if !(line.isEmpty || line.hasPrefix("---") || line.hasPrefix("-- ") || line.hasPrefix("function ")
                || line.hasSuffix(" = nil"))
            {
                problems.append("line: \(line)")
            }
        }
        problems += named.subtracting(declared).subtracting(builtins).sorted().map { "undeclared: \($0)" }
        return problems
    }

    private func definitions<S: Decodable>(_ type: S.Type, _ dependencies: PluginDependencies = PluginDependencies()) -> String {
        LuaTypeDefinitions.text(state: LuaShape.of(type), dependencies: dependencies)
    }

    @Test func awkwardKeysAndTypesGiveDefinitionsLuaLSReads() throws {
        let text = definitions(Shelf.self)
        #expect(problems(in: text) == [], "\(text)")
    }

    /// A key that is a Lua keyword or no name is quoted, escaped as a Lua string.
    @Test(arguments: [
        ("end", #"---@field ["end"] integer"#),
        ("nil", #"---@field ["nil"] boolean"#),
        ("with-dash", #"---@field ["with-dash"] string"#),
        ("two words", #"---@field ["two words"] number"#),
        ("1st", #"---@field ["1st"] integer"#),
        ("line\nbreak", #"---@field ["line\nbreak"] string"#),
        ("say \"hi\"", #"---@field ["say \"hi\""] string"#),
        ("café", #"---@field ["café"] string"#),
    ])
    func aKeyThatIsNoNameIsQuoted(key: String, line: String) throws {
        let text = definitions(Shelf.self)
        #expect(text.contains(line + "\n"), "\(key) in \(text)")
    }

    /// A class's name that holds another's (`ItemList`, `Item`) or is generic (`Box<Item>`) was
    /// rewritten by text replacement into names no class has: `moonblade.types.moonblade.types.ItemList`.
    @Test func typesWhoseNamesHoldOneAnotherKeepTheirOwnClasses() throws {
        let text = definitions(Shelf.self)
        #expect(text.contains("---@field lists moonblade.types.ItemList[]\n"), "\(text)")
        #expect(text.contains("---@class moonblade.types.ItemList\n---@field items moonblade.types.Item[]\n"), "\(text)")
        #expect(text.contains("---@field boxed moonblade.types.Box_Item_\n"), "\(text)")
        #expect(!text.contains("moonblade.types.moonblade"), "\(text)")
    }

    /// What Lua can hold: a nil in an array, a dictionary keyed by numbers, an enum's table.
    @Test(arguments: [
        ("maybe", "string?"),
        ("deep", "(((string?)[])?)[]"),
        ("byNumber", "table<integer, string>"),
        ("sparse", "table<string, integer?>"),
        ("kind", "string"),
    ])
    func valuesLuaCanHoldAreTypedAsTheyArrive(field: String, type: String) throws {
        let text = definitions(Shelf.self)
        #expect(text.contains("---@field \(field) \(type)\n"), "\(text)")
    }

    /// An enum that takes no placeholder ended the type holding it there: every field after it was
    /// missing from the definitions. A `CaseIterable` one is given its first case; another leaves
    /// its holder open to any key past the fields read.
    @Test func aFieldThatCannotBeProbedNoLongerEndsItsType() throws {
        let text = definitions(Shelf.self)
        #expect(text.contains("---@field kind string\n---@field tree moonblade.types.Node\n"), "\(text)")
        #expect(text.contains("---@field order moonblade.types.Order\n---@field [string] any"), "\(text)")
        #expect(
            text.contains(
                """
                ---@class moonblade.types.Order
                ---@field note string
                ---@field size string
                ---@field [string] any The fields past the first the editor types could not read.

                """), "\(text)")
    }

    /// Each value handed back was made with one element per array: a `Node { children: [Node] }`
    /// had a child with a child… until the stack overflowed.
    @Test func aRecursiveTypeEndsAndNamesItself() throws {
        let root = definitions(Node.self)
        #expect(root.contains("---@class moonblade.State\n---@field label string\n---@field children moonblade.State[]\n"), "\(root)")
        #expect(problems(in: root) == [], "\(root)")
        let text = definitions(Shelf.self)
        #expect(text.contains("---@class moonblade.types.Node\n---@field label string\n---@field children moonblade.types.Node[]\n"), "\(text)")
    }

    /// Dependency groups and functions are named by the app: a name that is no Lua name is quoted,
    /// and its class name made of name characters.
    @Test func dependencyNamesThatAreNoNamesAreQuoted() throws {
        var dependencies = PluginDependencies()
        dependencies.expose("my-store", "read all") { (key: String) in key }
        dependencies.expose("end", "do") { (key: String) in key }
        // An enum with associated values: a table of its case's name, whatever the case.
        dependencies.expose("pay", "charge") { (_: Payment) in }
        let text = definitions(Shelf.self, dependencies)
        #expect(problems(in: text) == [], "\(text)")
        #expect(text.contains(#"---@field ["my-store"] moonblade.deps.my_store"# + "\n"), "\(text)")
        #expect(text.contains(#"---@field ["read all"] fun(arguments: string): string"# + "\n"), "\(text)")
        #expect(text.contains(#"---@field ["do"] fun(arguments: string): string"# + "\n"), "\(text)")
        #expect(text.contains("---@field charge fun(arguments: table<string, any>)\n"), "\(text)")
    }

    struct Wide: Codable {
        var fields: [String: Int] = [:]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for index in 0..<2000 {
                fields["field\(index)"] = try container.decode(Int.self, forKey: Key(stringValue: "field\(index)"))
            }
        }

        func encode(to encoder: any Encoder) throws {}
    }

    struct Pair<Inner: Codable>: Codable {
        var left: Inner
        var right: Inner
    }

    typealias Pairs4 = Pair<Pair<Pair<Pair<Int>>>>
    typealias Pairs12 = Pair<Pair<Pair<Pair<Pair<Pair<Pair<Pair<Pairs4>>>>>>>>

    /// Each use of a type was probed again, and each value handed back probed again: twelve levels
    /// of a type used twice were some 4^12 probes, which run well past the test's time limit (no timed
    /// expectation: timings belong in benchmarks, and sanitized runs are several times slower).
    @Test(.hangGuard)
    func aTypeUsedManyTimesAtManyLevelsIsProbedOnce() throws {
        let text = definitions(Pairs12.self)
        #expect(text.components(separatedBy: "---@class moonblade.types.Pair_").count == 12)
        #expect(problems(in: text) == [])
    }

    @Test(.hangGuard)
    func aTypeOfThousandsOfFieldsIsWritten() throws {
        let text = definitions(Wide.self)
        #expect(text.components(separatedBy: "\n---@field field").count == 2001)
        #expect(problems(in: text) == [])
    }
}
