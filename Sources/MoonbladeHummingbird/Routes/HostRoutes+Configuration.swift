extension HostRoutes {
    /// What the routes accept and who may use them.
    public struct Configuration: Sendable {
        /// The bearer token that dispatch, reload and the event stream require; nil requires none
        /// (keep such a server on loopback).
        public var token: String?
        /// The largest request body accepted, in bytes; a larger one is refused with 413. 1 MiB by default.
        public var maxBodySize: Int
        /// How many events may wait for one stream client before newer ones are dropped (the client
        /// is then told how many it missed). 1,024 by default.
        public var eventQueueLimit: Int
        /// Origins (`https://app.example`) besides the server's own whose pages may open the event
        /// stream; a browser's WebSocket from any other origin is refused with 403. Clients that send
        /// no `Origin` (not browsers) are not affected.
        public var allowedOrigins: Set<String>

        /// Settings with the defaults documented on each property.
        public init(
            token: String? = nil, maxBodySize: Int = 1 << 20, eventQueueLimit: Int = 1024,
            allowedOrigins: Set<String> = []
        ) {
            self.token = token
            self.maxBodySize = maxBodySize
            self.eventQueueLimit = eventQueueLimit
            self.allowedOrigins = allowedOrigins
        }
    }
}
