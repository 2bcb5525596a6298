import HTTPTypes

extension HTTPFields {
    /// The fields the router's middleware adds to every answer, in the order they end up in:
    /// `Strict-Transport-Security` (with TLS, `StrictTransportSecurity`), then
    /// `X-Content-Type-Options` (`SecurityHeadersMiddleware`). An answer made ahead of time for the
    /// event loop ends with them, as the route's does.
    static func routerMiddleware(_ strictTransportSecurity: StrictTransportSecurity?) -> HTTPFields {
        var fields: HTTPFields = [:]
        if let strictTransportSecurity { fields[.strictTransportSecurity] = strictTransportSecurity.value }
        fields[.xContentTypeOptions] = "nosniff"
        return fields
    }
}
