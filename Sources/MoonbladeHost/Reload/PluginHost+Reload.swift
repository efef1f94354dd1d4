import Moonblade
import Tracing

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
    /// The host's Swift interceptors see the swap like any item. One that drops it, or throws before
    /// passing it on, fails the reload with nothing changed; one that throws after passing it on cannot
    /// take it back, so the reload returns the new version and logs the interceptor's error as a warning.
    ///
    /// Every step is reported to ``reloadEvents()`` (with the cause ``PluginReloadCause/call``) and the
    /// logger (those entries carry a `reload` metadata value: `succeeded`, `migrated` or `failed`, so a
    /// host showing the events can skip them).
    @discardableResult
    public func reload(plugin name: String) async throws(PluginError) -> PluginInfo {
        try await reload(plugin: name, cause: .call)
    }

    /// ``reload(plugin:)``, its events reporting `cause`.
    func reload(plugin name: String, cause: PluginReloadCause) async throws(PluginError) -> PluginInfo {
        try await finishReload(startReload(plugin: name, cause: cause))
    }

    /// A reload whose swap has been dispatched, waiting to be reported.
    struct StartedReload: Sendable {
        let plugin: String
        let cause: PluginReloadCause
        /// The swap's dispatch, or why the new code was refused before it.
        let swap: Result<(ticket: Int, handle: DispatchHandle<Void>), PluginError>
        /// When it started, where its `reload <plugin>` span starts.
        let startedAt = DefaultTracerClock.now
    }

    /// Compiles and checks the new code and dispatches its swap, synchronously: the swap takes its place
    /// in the store's queue on the calling thread, without waiting for a free thread of the
    /// cooperative pool (which busy dispatchers may hold).
    func startReload(plugin name: String, cause: PluginReloadCause) -> StartedReload {
        reloadEventHub.send(PluginReloadEvent(step: .started(plugin: name), cause: cause))
        do throws(PluginError) {
            let ticket = try runtime.stageReload(of: name)
            let handle = store.dispatch(PluginSwap(runtime: runtime, plugin: name, ticket: ticket))
            return StartedReload(plugin: name, cause: cause, swap: .success((ticket, handle)))
        } catch {
            return StartedReload(plugin: name, cause: cause, swap: .failure(error))
        }
    }

    /// Waits for the swap of `reload` and reports how it went, in a `reload <plugin>` span.
    func finishReload(_ reload: StartedReload) async throws(PluginError) -> PluginInfo {
        try await runtime.instrumentReload(reload.plugin, startedAt: reload.startedAt) { () async throws(PluginError) in
            try await awaitSwap(reload)
        }
    }

    /// Waits for the swap of `reload` and reports how it went.
    private func awaitSwap(_ reload: StartedReload) async throws(PluginError) -> PluginInfo {
        let name = reload.plugin
        let report = { [reloadEventHub] (step: PluginReloadEvent.Step) in
            reloadEventHub.send(PluginReloadEvent(step: step, cause: reload.cause))
        }
        do throws(PluginError) {
            let (ticket, handle) = try reload.swap.get()
            let failure: (any Error)?
            do {
                try await handle.value
                failure = nil
            } catch {
                failure = error
            }
            // The swap's own record says whether the new version went in: an interceptor may fail after
            // passing the swap on, and the new code runs from then on all the same.
            guard let outcome = runtime.finishReload(ticket) else {
                guard let failure else {
                    throw PluginError(.runtime, plugin: name, message: "an interceptor dropped the swap; nothing changed")
                }
                throw failure as? PluginError ?? PluginError(.runtime, plugin: name, message: "\(failure)", underlying: failure)
            }
            if let failure {
                logger.warning(
                    "plugin \(name)'s new version is in; an interceptor failed after passing its swap on: \(failure)",
                    metadata: ["plugin": "\(name)"])
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
    /// Starts reloading each plugin whenever a Lua file in its folder or a subfolder changes (see
    /// ``PluginWatcher``): a module `require` loads reloads the whole plugin.
    ///
    /// Keep the returned watcher for as long as you want reloads: watching stops when it is freed (so
    /// a dropped result, which the compiler warns about, watches nothing) or when you call
    /// ``PluginWatcher/stop()``.
    ///
    /// A failed reload leaves the earlier version running; the failure goes to ``reloadEvents()`` and the
    /// log, and the next save tries again. Its events have the cause ``PluginReloadCause/watcher``.
    /// The new code is compiled and its swap queued on the watcher's own thread, so a reload gets in
    /// between two dispatches however busy the dispatching tasks keep the cooperative pool.
    ///
    /// The folders of plugins that did not load at start are watched too: a change there loads the
    /// plugin (``load(plugin:)``) once it is fixed, and reloads it from then on. A plugin loaded later
    /// from another folder with ``load(plugin:)`` is watched from then on by every watcher still running.
    public func watchPlugins(
        debounce: Duration = .milliseconds(50), pollingInterval: Duration? = nil
    ) -> PluginWatcher {
        // A folder given twice, or under two spellings (a duplicate refused at start), is watched once.
        let watcher = PluginWatcher(
            directories: plugins.map(\.directory) + unloadedDirectories, debounce: debounce, pollingInterval: pollingInterval
        ) { [weak self] directory in
            guard let self else { return }
            // Looked up at each change: a plugin loaded since then reloads.
            if let name = plugins.first(where: { $0.directory == directory })?.name {
                // Swapped in from the watcher's own thread, however busy the pool is; only the report waits.
                let reload = startReload(plugin: name, cause: .watcher)
                Task { _ = try? await self.finishReload(reload) }
            } else {
                _ = try? load(plugin: directory, cause: .watcher)
            }
        }
        watchers.add(watcher)
        return watcher
    }
}
