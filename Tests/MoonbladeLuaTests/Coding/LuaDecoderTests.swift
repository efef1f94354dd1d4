import CLua
import Foundation
import MoonbladeLua
import Testing

@Suite("LuaDecoder: Lua tables as Swift values")
struct LuaDecoderTests {
    @Test func decodesTablesLuaBuiltAndIgnoresUnknownKeys() throws {
        let state = try decodeLua(
            TodoState.self,
            """
            local todos = {}
            for i = 1, 3 do todos[#todos + 1] = { title = "t" .. i, done = i == 2, tags = {}, extra = print } end
            todos[3].tags = { "a", "b" }
            return { todos = todos, owner = { name = "Ada", age = 36.0 }, unknown = { 1, 2, 3 } }
            """)
        #expect(state.todos.map(\.title) == ["t1", "t2", "t3"])
        #expect(state.todos.map(\.done) == [false, true, false])
        #expect(state.todos[2].tags == ["a", "b"])
        #expect(state.owner == User(name: "Ada", age: 36))
    }

    /// One field of every scalar kind, to check that each reader names its key only when it fails.
    private struct Scalars: Decodable {
        var flag: Bool
        var name: String
        var ratio: Double
        var small: Float
        var count: Int
        var byte: UInt8
        var maybe: Int16?
    }

    @Test(arguments: [
        ("flag = 1", "state.rows[2].flag: expected Bool, found integer 1"),
        ("name = 2", "state.rows[2].name: expected String, found integer 2"),
        ("name = '\\xff'", "state.rows[2].name: expected String, found a string that is not valid UTF-8"),
        ("ratio = 'x'", #"state.rows[2].ratio: expected Double, found string "x""#),
        ("ratio = math.maxinteger", "state.rows[2].ratio: expected Double, found integer \(Int64.max) (no exact Double)"),
        ("small = 1e300", "state.rows[2].small: expected Float, found number 1e+300 (out of range)"),
        ("count = 1.5", "state.rows[2].count: expected Int, found number 1.5 (not a whole number)"),
        ("byte = 256", "state.rows[2].byte: expected UInt8, found integer 256 (out of range)"),
        ("maybe = true", "state.rows[2].maybe: expected Int16, found boolean true"),
    ])
    func everyScalarReaderNamesTheFieldItFailedOn(field: String, message: String) {
        struct Rows: Decodable { var rows: [Scalars] }
        let good = "{ flag = true, name = 'n', ratio = 0.5, small = 1.5, count = 3, byte = 7 }"
        let bad = "{ flag = true, name = 'n', ratio = 0.5, small = 1.5, count = 3, byte = 7, \(field) }"
        #expect(decodingFailure(Rows.self, "return { rows = { \(good), \(bad), \(good) } }") == message)
    }

    @Test func errorsNameThePathOneBasedAndWhatWasFound() {
        let source = """
            return { todos = {
              { title = "a", done = false, tags = {} },
              { title = "b", done = false, tags = {} },
              { title = "c", done = "yes", tags = {} },
            } }
            """
        #expect(decodingFailure(TodoState.self, source) == #"state.todos[3].done: expected Bool, found string "yes""#)
        #expect(
            decodingFailure(TodoState.self, "return { todos = {}, owner = { age = 3 } }")
                == #"state.owner: required key "name" is missing"#)
        #expect(
            decodingFailure(TodoState.self, "return { todos = { { title = 1, done = true, tags = {} } } }")
                == "state.todos[1].title: expected String, found integer 1")
        #expect(
            decodingFailure(TodoState.self, "return { todos = { { title = 'x', done = true, tags = { 'a', false } } } }")
                == "state.todos[1].tags[2]: expected String, found boolean false")
        #expect(decodingFailure(TodoState.self, "return 'todos'") == #"state: expected a table, found string "todos""#)
        #expect(decodingFailure(TodoState.self, "return { todos = 3 }") == "state.todos: expected a sequence, found integer 3")
        #expect(decodingFailure(User.self, "return { name = 'x', age = nil }") == #"state: required key "age" is missing"#)
    }

    @Test func theErrorsAreDecodingErrorsWithCodingPaths() throws {
        do {
            _ = try decodeLua(TodoState.self, "return { todos = { { title = 'x', done = 1, tags = {} } } }")
            Issue.record("expected an error")
        } catch DecodingError.typeMismatch(let type, let context) {
            #expect(ObjectIdentifier(type) == ObjectIdentifier(Bool.self))
            #expect(context.codingPath.map(\.stringValue) == ["todos", "1", "done"])
            #expect(context.codingPath[1].intValue == 1)
            #expect(context.debugDescription == "expected Bool, found integer 1")
        }
        do {
            _ = try decodeLua(User.self, "return { age = 1 }")
            Issue.record("expected an error")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == "name")
            #expect(context.codingPath.isEmpty)
        }
        do {
            _ = try decodeLua([Int].self, "return { 1, 2, nil }")  // a trailing nil is no hole
            _ = try decodeLua(Int.self, "return nil")
            Issue.record("expected an error")
        } catch DecodingError.valueNotFound(let type, let context) {
            #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
            #expect(context.debugDescription == "expected Int, found nil")
        }
    }

    @Test func integralFloatsDecodeIntoIntegersWhenExact() throws {
        #expect(try decodeLua(Int.self, "return 3.0") == 3)
        #expect(try decodeLua(Int8.self, "return -128.0") == -128)
        #expect(try decodeLua(UInt64.self, "return math.maxinteger") == UInt64(Int64.max))
        #expect(try decodeLua(Int64.self, "return math.mininteger") == Int64.min)
        #expect(try decodeLua([UInt8].self, "return { 0, 255.0 }") == [0, 255])
    }

    @Test(arguments: [
        ("3.5", "number 3.5 (not a whole number)"),
        ("0/0", "number nan (not a whole number)"),
        ("-(0/0)", "number nan (not a whole number)"),
        ("math.huge", "number inf (not a whole number)"),
        ("-math.huge", "number -inf (not a whole number)"),
        ("2^63", "number 9.223372036854776e+18 (out of range)"),
        ("1e300", "number 1e+300 (out of range)"),
    ])
    func nonIntegralOrHugeFloatsDoNotDecodeIntoIntegers(_ source: String, _ found: String) {
        #expect(decodingFailure(Int.self, "return \(source)") == "state: expected Int, found \(found)")
    }

    @Test func integersOutOfRangeAreErrorsNeverWraps() {
        #expect(decodingFailure(Int8.self, "return 128") == "state: expected Int8, found integer 128 (out of range)")
        #expect(decodingFailure(UInt8.self, "return -1") == "state: expected UInt8, found integer -1 (out of range)")
        #expect(decodingFailure(UInt16.self, "return 65536") == "state: expected UInt16, found integer 65536 (out of range)")
        #expect(decodingFailure(Int32.self, "return 2^31") == "state: expected Int32, found number 2147483648.0 (out of range)")
        #expect(decodingFailure(UInt32.self, "return { 1 }") == "state: expected UInt32, found table")
        #expect(decodingFailure(UInt64.self, "return math.mininteger") == "state: expected UInt64, found integer \(Int64.min) (out of range)")
        #expect(decodingFailure(UInt.self, "return -3") == "state: expected UInt, found integer -3 (out of range)")
        #expect(decodingFailure(Int16.self, "return '12'") == #"state: expected Int16, found string "12""#)
    }

    @Test func floatingPointReadsFloatsAndExactIntegers() throws {
        #expect(try decodeLua(Double.self, "return 3") == 3.0)
        #expect(try decodeLua(Double.self, "return 2^53") == 9_007_199_254_740_992)
        #expect(try decodeLua(Double.self, "return 1/0") == .infinity)
        #expect(try decodeLua(Double.self, "return 0/0").isNaN)
        #expect(try decodeLua(Float.self, "return 0.1") == Float(0.1))
        #expect(try decodeLua(Float.self, "return -math.huge") == -.infinity)
        #expect(decodingFailure(Float.self, "return 1e300") == "state: expected Float, found number 1e+300 (out of range)")
        #expect(
            decodingFailure(Double.self, "return math.maxinteger")
                == "state: expected Double, found integer \(Int64.max) (no exact Double)")
        #expect(decodingFailure(Double.self, "return '1.5'") == #"state: expected Double, found string "1.5""#)
    }

    @Test func boolsAndStringsAreStrict() throws {
        #expect(decodingFailure(Bool.self, "return 1") == "state: expected Bool, found integer 1")
        #expect(decodingFailure(Bool.self, "return nil") == "state: expected Bool, found nil")
        #expect(decodingFailure(String.self, "return 12") == "state: expected String, found integer 12")
        #expect(try decodeLua(String.self, #"return "a\0b\0""#) == "a\0b\0")
        #expect(try decodeLua(String.self, #"return "ünï ✓ 😀""#) == "ünï ✓ 😀")
        #expect(decodingFailure(String.self, #"return "\xff\xfe""#) == "state: expected String, found a string that is not valid UTF-8")
    }

    @Test func optionalsReadNilAbsentKeysAndNull() throws {
        struct Sparse: Codable, Equatable { var a: Int?; var b: String?; var c: [Int]? }
        #expect(try decodeLua(Sparse.self, "return {}") == Sparse(a: nil, b: nil, c: nil))
        #expect(try decodeLua(Sparse.self, "return { a = 1, c = {} }") == Sparse(a: 1, b: nil, c: []))
        let vm = try LuaVM()
        vm.register("null") { stack in
            stack.pushNull()
            return 1
        }
        #expect(try decodeLua(Sparse.self, "return { a = null(), b = 'x' }", vm: vm) == Sparse(a: nil, b: "x", c: nil))
        #expect(try decodeLua([Int?].self, "return { 1, null(), 3 }", vm: vm) == [1, nil, 3])
        #expect(try decodeLua(Int?.self, "return null()", vm: vm) == nil)
        #expect(decodingFailure(User.self, "return { name = null(), age = 1 }", vm: vm) == "state.name: expected String, found null")
        #expect(decodingFailure(Sparse.self, "return { a = 'one' }") == #"state.a: expected Int, found string "one""#)
    }

    @Test func sequencesWithHolesOrOtherKeysAreErrors() {
        #expect(decodingFailure([Int].self, "return { 1, nil, 3 }") == "state: expected a sequence, found a hole at [2]")
        #expect(decodingFailure([Int].self, "return { [1] = 1, [3] = 3 }")?.hasPrefix("state: expected a sequence, found a hole at [2]") == true)
        #expect(decodingFailure([Int].self, "return { [2] = 2 }") == "state: expected a sequence, found a hole at [1]")
        #expect(decodingFailure([Int].self, "return { 1, 2, name = 'x' }") == #"state: expected a sequence, found key "name""#)
        #expect(decodingFailure([Int].self, "return { [0] = 0, 1 }") == "state: expected a sequence, found key [0]")
        #expect(decodingFailure([Int].self, "return { 1, [1.5] = 2 }") == "state: expected a sequence, found key [1.5]")
        #expect(decodingFailure([String: [Int]].self, "return { list = { 1, [4] = 4 } }")?.hasPrefix(#"state.list: expected a sequence"#) == true)
    }

    @Test func nonStringKeysWhereAStructIsExpectedAreErrors() {
        #expect(decodingFailure(User.self, "return { 'Ada', 36 }") == "state: expected a table with string keys, found key [1]")
        #expect(
            decodingFailure(User.self, "return { name = 'Ada', age = 1, [true] = 1 }") == "state: expected a table with string keys, found key [true]"
        )
        #expect(
            decodingFailure(TodoState.self, "return { todos = { { title = 'a', done = true, tags = {}, [{}] = 1 } } }")
                == "state.todos[1]: expected a table with string keys, found key [table]")
        #expect(decodingFailure([String: Int].self, "return { a = 1, [2] = 2 }") == "state: expected a table with string keys, found key [2]")
        #expect(decodingFailure([Int: Int].self, "return { [1] = 1, a = 2 }") == #"state: expected a table with integer keys, found key "a""#)
    }

    @Test func integerKeyedDictionariesReadIntegerKeys() throws {
        #expect(
            try decodeLua([Int: String].self, "return { [5] = 'five', [-2] = 'minus two', [1] = 'one' }") == [5: "five", -2: "minus two", 1: "one"])
        #expect(try decodeLua([Int: Bool].self, "return { true, false }") == [1: true, 2: false])
        #expect(try decodeLua([String: Int].self, "return { ['1'] = 1, b = 2 }") == ["1": 1, "b": 2])
        #expect(decodingFailure([Int: String].self, "return { [5] = 5 }") == "state[5]: expected String, found integer 5")
    }

    @Test func cyclesAreErrorsNotCrashes() {
        final class Node: Decodable {
            var next: Node?
        }
        #expect(decodingFailure(Node.self, "local t = {} t.next = t return t") == "state.next: found a table that contains itself (a cycle)")
        #expect(
            decodingFailure(Node.self, "local a, b = {}, {} a.next = b b.next = a return a")
                == "state.next.next: found a table that contains itself (a cycle)")
        struct Tree: Decodable { var children: [Tree] }
        #expect(
            decodingFailure(Tree.self, "local t = { children = {} } t.children[1] = t return t")
                == "state.children[1]: found a table that contains itself (a cycle)")
    }

    @Test func sharedTablesThatAreNotCyclesAreFine() throws {
        let pair = try decodeLua([String: [Int]].self, "local shared = { 1, 2 } return { a = shared, b = shared }")
        #expect(pair == ["a": [1, 2], "b": [1, 2]])
        struct Alias: Decodable { var self_: Int; enum CodingKeys: String, CodingKey { case self_ = "self" } }
        // A table holding itself under a key the type never reads is not followed.
        #expect(try decodeLua(User.self, "local t = { name = 'x', age = 1 } t.me = t return t") == User(name: "x", age: 1))
    }

    @Test func functionsCoroutinesAndUserdataAreErrors() throws {
        #expect(decodingFailure(User.self, "return { name = print, age = 1 }") == "state.name: expected String, found function")
        #expect(
            decodingFailure(User.self, "return { name = 'x', age = coroutine.create(print) }")
                == "state.age: expected Int, found coroutine")
        #expect(decodingFailure([Int].self, "return { 1, print }") == "state[2]: expected Int, found function")
        #expect(decodingFailure(TodoState.self, "return { todos = { print } }") == "state.todos[1]: expected a table, found function")
        let vm = try LuaVM()
        vm.register("userdata") { stack in
            _ = lua_newuserdatauv(stack.state, 8, 0)
            return 1
        }
        vm.register("light") { stack in
            lua_pushlightuserdata(stack.state, UnsafeMutableRawPointer(bitPattern: 8))
            return 1
        }
        #expect(decodingFailure(User.self, "return { name = userdata(), age = 1 }", vm: vm) == "state.name: expected String, found userdata")
        #expect(decodingFailure(User.self, "return userdata()", vm: vm) == "state: expected a table, found userdata")
        #expect(decodingFailure([Int].self, "return { light() }", vm: vm) == "state[1]: expected Int, found userdata")
    }

    @Test func metatablesAreIgnored() throws {
        let source = """
            local mt = {
              __index = function() error("__index ran") end,
              __newindex = function() error("__newindex ran") end,
              __pairs = function() error("__pairs ran") end,
              __len = function() error("__len ran") end,
            }
            local tags = setmetatable({ "a" }, mt)
            local todo = setmetatable({ title = "x", done = true, tags = tags }, mt)
            return setmetatable({ todos = setmetatable({ todo }, mt) }, mt)
            """
        #expect(try decodeLua(TodoState.self, source) == TodoState(todos: [Todo(title: "x", done: true, tags: ["a"])], owner: nil))
        // An __index that would supply a missing key is not consulted either.
        #expect(
            decodingFailure(User.self, "return setmetatable({ age = 1 }, { __index = { name = 'from metatable' } })")
                == #"state: required key "name" is missing"#)
    }

    @Test func enumsDecodeFromTheirCodableForms() throws {
        enum Priority: String, Codable { case low, high }
        enum Shape: Codable, Equatable { case circle(radius: Double), point }
        #expect(try decodeLua([Priority].self, "return { 'low', 'high' }") == [.low, .high])
        #expect(try decodeLua(Shape.self, "return { circle = { radius = 2 } }") == .circle(radius: 2))
        #expect(try decodeLua(Shape.self, "return { point = {} }") == .point)
        let message = decodingFailure([Priority].self, "return { 'low', 'urgent' }")
        #expect(message?.hasPrefix("state[2]: ") == true)
        #expect(message?.contains("urgent") == true)
    }

    /// A value read through a single-value container (a raw-value enum, a wrapper) fails as a field does.
    @Test func aSingleValueThatDoesNotReadFailsNamingItsPlace() throws {
        enum Priority: String, Codable { case low, high }
        enum Level: Int8, Codable { case one = 1 }
        struct Ratio: Codable {
            let value: Float
            init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Float.self) }
            func encode(to encoder: any Encoder) throws {}
        }
        #expect(decodingFailure([Priority].self, "return { 'low', 3 }") == "state[2]: expected String, found integer 3")
        #expect(decodingFailure([Priority].self, "return { 'low', '\\xff' }") == "state[2]: expected String, found a string that is not valid UTF-8")
        #expect(decodingFailure([Level].self, "return { 1, 300 }") == "state[2]: expected Int8, found integer 300 (out of range)")
        #expect(decodingFailure([Level].self, "return { 1.5 }") == "state[1]: expected Int8, found number 1.5 (not a whole number)")
        #expect(decodingFailure([Ratio].self, "return { 1e300 }") == "state[1]: expected Float, found number 1e+300 (out of range)")
        #expect(decodingFailure([Ratio].self, "return { {} }") == "state[1]: expected Float, found table")
        #expect(try decodeLua([Ratio].self, "return { math.maxinteger }").first?.value == Float(Int64.max))
    }

    @Test func theStackIsUnchangedAfterDecodingAtAnyIndex() throws {
        let vm = try LuaVM()
        try vm.stack.load("return { name = 'a', age = 1 }, 'filler', { name = 2 }", chunkName: "t")
        try vm.stack.call(results: 3)
        try expectBalanced(vm) { () throws -> Void in
            #expect(try LuaDecoder().decode(User.self, from: vm.stack, at: -3) == User(name: "a", age: 1))
            #expect(try LuaDecoder().decode(User.self, from: vm.stack, at: 1) == User(name: "a", age: 1))
            #expect(throws: DecodingError.self) { try LuaDecoder().decode(User.self, from: vm.stack, at: -1) }
            #expect(throws: DecodingError.self) { try LuaDecoder().decode(User.self, from: vm.stack, at: 7) }
        }
        vm.stack.pop(3)
    }

    @Test func deepButFiniteNestingWithinTheLimitDecodes() throws {
        final class Chain: Codable {
            var next: Chain?
            var depth: Int { 1 + (next?.depth ?? 0) }
        }
        let chain = try decodeLua(Chain.self, "local t = {} for i = 1, 300 do t = { next = t } end return t")
        #expect(chain.depth == 301)
        let message = decodingFailure(Chain.self, "local t = {} for i = 1, 600 do t = { next = t } end return t")
        #expect(message?.hasSuffix("nested more than 512 levels deep") == true)
    }

    @Test func describeRendersOddKeysAsLuaWould() {
        struct Odd: Decodable { var inner: [String: Int] }
        #expect(decodingFailure(Odd.self, "return { inner = { ['a key'] = 'x' } }") == #"state.inner["a key"]: expected Int, found string "x""#)
        #expect(decodingFailure(Odd.self, "return { inner = { ['end'] = true } }") == #"state.inner["end"]: expected Int, found boolean true"#)
        #expect(
            decodingFailure(Odd.self, "return { inner = { ['x'] = 'a\\nvery long string that goes on and on and on and on' } }")
                == #"state.inner.x: expected Int, found string "a\nvery long string that goes on and on a…""#)
    }
}
