import Foundation
import MoonbladeHost
import Testing

@Suite("moonblade run --post")
struct RunPostTests {
    let workspace = Workspace()

    @Test func postFiresNotificationRulesAfterTheDispatches() async throws {
        let shop = try workspace.plugin(
            "shop",
            """
            return {
              name = "shop",
              updaters = {
                open = function(state) state.open = true end,
                restock = function(state, p) state.stock = (state.stock or 0) + p.count end,
              },
              observers = {
                { on_notification = "app.delivery",
                  dispatch = { { "shop.restock", function(delivery) return { count = delivery.count } end } } },
              },
            }
            """)
        let outcome = try await workspace.run(
            "run", shop, "--dispatch", "shop.open", "--post", "app.delivery", #"{"count": 3}"#, "--post", "app.delivery", #"{"count": 2}"#)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try outcome.json() == ["open": true, "stock": 5])
        let bad = try await workspace.run("run", shop, "--post", "app.delivery", "{not json")
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--post"), "\(bad.stderr)")
    }
}
