import Hummingbird
import MoonbladeHost
import NIOCore

extension Response {
    /// A 200 answer carrying `value` as `application/json`.
    init(json value: JSONValue) {
        var bytes: [UInt8] = []
        value.writeJSON(to: &bytes)
        self.init(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
