import Foundation
import MoonbladeHost
import Testing

/// The shipped plugins driven through the command line, as a user would.
@Suite("Shipped plugins through moonblade run")
struct ShippedPluginTests {
    let workspace = Workspace()

    @Test func cartChecksOutAnOrderIntoStorageAndEmptiesTheCart() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("cart"), "--data-dir", "data", "--watch", "--no-timestamps",
            "--dispatch", "cart.add", #"{"sku": "apple", "name": "Apple", "price": 120, "quantity": 2}"#,
            "--dispatch", "cart.add", #"{"sku": "pear", "price": 90}"#,
            "--dispatch", "cart.set_quantity", #"{"sku": "pear", "quantity": 3}"#,
            input: "cart.checkout {\"customer\": \"ada\"}\n")
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n", maxSplits: 1).map(String.init)
        try #require(lines.count >= 2)
        let summary = try JSONDecoder().decode(JSONValue.self, from: Data(lines[0].utf8))
        #expect(summary["order"] == "order-1")
        #expect(summary["total"] == 510)
        #expect(summary["items"] == 5)
        #expect(
            try JSONDecoder().decode(JSONValue.self, from: Data(lines[1].utf8)) == [
                "cart": ["items": [], "total": 0], "last_order": "order-1",
            ])

        let orders = try JSONDecoder().decode(
            JSONValue.self, from: Data(workspace.read("data/orders.json").utf8))
        #expect(orders[0]?["customer"] == "ada")
        #expect(orders[0]?["total"] == 510)
        #expect(
            orders[0]?["items"] == [
                ["sku": "apple", "name": "Apple", "price": 120, "quantity": 2],
                ["sku": "pear", "name": "pear", "price": 90, "quantity": 3],
            ])
        #expect(outcome.stderr == "info [cart] order placed order=order-1 total=510\n")
    }

    @Test(arguments: [
        (#"{"sku": "apple", "price": 1.5}"#, "price must be a whole number of cents >= 0, got 1.5"),
        (#"{"sku": "apple", "price": 100, "quantity": 0}"#, "quantity must be an integer >= 1, got 0"),
        (#"{"price": 100}"#, "cart.add needs a sku"),
    ])
    func cartRefusesABadItemAtTheLineOfItsCheck(payload: String, message: String) async throws {
        let outcome = try await workspace.run("run", shippedPlugin("cart"), "--dispatch", "cart.add", payload)
        #expect(outcome.status == 1)
        // The check that raises is the line with the message's start, in the updater itself.
        let line = try #require(try lineNumber(in: shippedPlugin("cart"), of: "check(", message.prefix(16)))
        #expect(outcome.stderr == "error: cart.add: cart/plugin.lua:\(line): \(message)\n")
    }

    @Test func todoSavesThroughItsObserverBeforeTheCommandExits() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("todo"), "--data-dir", "data", "--dispatch", "todo.add", #"{"title": "milk"}"#)
        #expect(outcome.status == 0)
        let saved = try JSONDecoder().decode(JSONValue.self, from: Data(workspace.read("data/todos.json").utf8))
        #expect(saved == [["title": "milk", "done": false]])
    }

    @Test func cartsInterceptorTurnsAwayANegativeQuantityAtItsLine() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("cart"), "--dispatch", "cart.add", #"{"sku": "pear", "price": 90}"#,
            "--dispatch", "cart.set_quantity", #"{"sku": "pear", "quantity": -1}"#)
        #expect(outcome.status == 1)
        let line = try #require(try lineNumber(in: shippedPlugin("cart"), of: "error(", "quantity must not"[...]))
        #expect(outcome.stderr == "error: cart.set_quantity: cart/plugin.lua:\(line): quantity must not be negative, got -1\n")
    }

    @Test func logLevelHoldsBackLessSevereEntries() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("cart"), "--data-dir", "data", "--log-level", "warning",
            "--dispatch", "cart.add", #"{"sku": "pear", "price": 90}"#, "--dispatch", "cart.checkout")
        #expect(outcome.status == 0)
        #expect(outcome.stderr == "")
    }

    @Test func cartRefusesToCheckOutAnEmptyCart() async throws {
        let outcome = try await workspace.run(
            "run", shippedPlugin("cart"), "--data-dir", "data", "--dispatch", "cart.checkout")
        #expect(outcome.status == 1)
        #expect(outcome.stderr.hasSuffix(": cannot check out an empty cart\n"))
        #expect(try workspace.contents() == [])
    }

    /// The 1-based line of `plugin.lua` in `folder` that contains both texts.
    private func lineNumber(in folder: String, of first: String, _ second: Substring) throws -> Int? {
        let source = try String(contentsOfFile: folder + "/plugin.lua", encoding: .utf8)
        return source.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(first) && $0.contains(second) }.map { $0 + 1 }
    }
}
