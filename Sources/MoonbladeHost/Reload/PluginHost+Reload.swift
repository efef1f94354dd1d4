import Moonblade

extension PluginHost {
    /// Loads the plugin `name` again from its folder and swaps the new version in between two
    /// dispatches; the state stays in the store.
    ///
    /// The new code is compiled and run in a fresh environment and shape-checked first: if any of that
    /// fails, the running version stays and this throws (the error has `file:line`). Then the swap is
    /// dispatched like an updater, so items dispatched before it run the old code and items after it the
    /// new. If the version rose and the new code has `migrate(state, from_version)`, it runs as part of
    /// that updater; should it fail, the old version is put back and the state is untouched. Side
    /// effects already running finish on the code they started with. Module-level locals start afresh:
    /// what must survive a reload belongs in the state.
    ///
    /// Every step is reported to ``reloadEvents()`` (with the cause ``PluginReloadCause/call``) and the
    /// logger (those entries carry a `reload` metadata value: `succeeded`, `migrated` or `failed`, so a
    /// host showing the events can skip them).
    @discardableResult
    public func reload(plugin name: String) async throws(PluginError) -> PluginInfo {
        try await reload(plugin: name, cause: .call)
    }

    /// ``reload(plugin:)``, its events reporting `cause`, in a `reload <plugin>` span.
    func reload(plugin name: String, cause: PluginReloadCause) async throws(PluginError) -> PluginInfo {
        try await runtime.instrumentReload(name) { () async throws(PluginError) in try await swap(plugin: name, cause: cause) }
    }

    /// Stages the new version of `name`, swaps it in, and reports each step.
    private func swap(plugin name: String, cause: PluginReloadCause) async throws(PluginError) -> PluginInfo {
        let report = { [reloadEventHub] (step: PluginReloadEvent.Step) in
            reloadEventHub.send(PluginReloadEvent(step: step, cause: cause))
        }
        report(.started(plugin: name))
        do throws(PluginError) {
            let ticket = try runtime.stageReload(of: name)
            do {
                try await store.dispatch(PluginSwap(runtime: runtime, plugin: name, ticket: ticket)).value
            } catch {
                _ = runtime.finishReload(ticket)
                throw error as? PluginError ?? PluginError(.runtime, plugin: name, message: "\(error)", underlying: error)
            }
            guard let outcome = runtime.finishReload(ticket) else {
                throw PluginError(.runtime, plugin: name, message: "an interceptor dropped the swap; nothing changed")
            }
            let info = outcome.info
            if let from = outcome.migratedFrom {
                report(.migrated(plugin: name, from: from, to: info.version))
                logger.info(
                    "migrated plugin \(name) from version \(from) to \(info.version)",
                    metadata: ["reload": "migrated", "plugin": "\(name)"])
            }
            report(.succeeded(info))
            logger.info(
                "reloaded plugin \(name) (version \(info.version))", metadata: ["reload": "succeeded", "plugin": "\(name)"])
            return info
        } catch {
            report(.failed(plugin: name, error))
            logger.error(
                "reload of plugin \(name) failed, the earlier version keeps running: \(error)",
                metadata: ["reload": "failed", "plugin": "\(name)"])
            throw error
        }
    }

    /// The reload events from now on: started, succeeded, migrated, failed, each with who asked for the
    /// reload. Each call makes its own stream.
    public func reloadEvents() -> AsyncStream<PluginReloadEvent> {
        reloadEventHub.subscribe()
    }
}

extension PluginHost {
    /// Starts reloading each plugin whenever its folder's Lua files change (see ``PluginWatcher``);
    /// watching lasts as long as the returned watcher.
    ///
    /// A failed reload leaves the earlier version running; the failure goes to ``reloadEvents()`` and the
    /// log, and the next save tries again. Its events have the cause ``PluginReloadCause/watcher``.
    public func watchPlugins(
        debounce: Duration = .milliseconds(50), pollingInterval: Duration? = nil
    ) -> PluginWatcher {
        let directories = Dictionary(plugins.map { ($0.directory, $0.name) }) { first, _ in first }
        return PluginWatcher(
            directories: Array(directories.keys), debounce: debounce, pollingInterval: pollingInterval
        ) { [weak self] directory in
            guard let self, let name = directories[directory] else { return }
            Task { try? await self.reload(plugin: name, cause: .watcher) }
        }
    }
}
