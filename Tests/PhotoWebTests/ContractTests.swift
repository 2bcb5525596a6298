import Foundation
import Hummingbird
@testable import PhotoWeb
import Testing
import PhotoServer

/// The HTTP API's written contract (`Public/openapi.json`) and the server agree: every route is
/// written down, nothing written down is missing, and the server serves the document.
@Suite("The API's contract")
struct ContractTests {
    /// The document's operations as "METHOD /path" with OpenAPI's `{name}` for a parameter.
    static func documented(_ document: [String: Any]) -> Set<String> {
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        return Set(paths.flatMap { path, operations in operations.keys.map { "\($0.uppercased()) \(path)" } })
    }

    /// A router route as the document writes it: `:index` as `{index}`, the static catch-all as `{path}`.
    static func written(_ route: Router<PhotoRequestContext>.RouteDescription) -> String {
        let path = "\(route.path)".split(separator: "/", omittingEmptySubsequences: false).map { component in
            component == "**" ? "{path}" : component.hasPrefix(":") ? "{\(component.dropFirst())}" : String(component)
        }.joined(separator: "/")
        return "\(route.method) \(path.isEmpty ? "/" : path)"
    }

    @Test func everyRouteIsInTheContractAndEveryOperationIsARoute() async throws {
        try await WebHarness.with(photoCount: 4) { harness in
            // Given the router the server runs and the document it serves
            let router = try Routes.router(context: harness.application.web.context)
            let response = try await harness.request(.GET, "/openapi.json")
            #expect(response.status == 200)
            #expect(response.headers[.contentType] == "application/json")
            let document = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])

            // Then the two name the same operations (HEAD is made for every GET by the router)
            let routes = Set(router.routes.filter { $0.method != .head }.map(Self.written))
            #expect(document["openapi"] as? String == "3.1.0")
            #expect(routes == Self.documented(document), "routes not written down: \(routes.subtracting(Self.documented(document)).sorted()); written down but not routes: \(Self.documented(document).subtracting(routes).sorted())")
        }
    }

    @Test func everyErrorStatusTheServerChoosesIsWrittenAsTheErrorShape() throws {
        // Given the document as the repository holds it
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Public/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let responses = try #require(components["responses"] as? [String: [String: Any]])

        // Then each shared error response is `{"error": reason}` as JSON
        for (name, response) in responses {
            let content = response["content"] as? [String: [String: Any]]
            let schema = content?["application/json"]?["schema"] as? [String: String]
            #expect(schema?["$ref"] == "#/components/schemas/Error", "\(name) is not the error shape")
        }
        // And every status an `APIError` can have appears among the documented responses
        let paths = try #require(document["paths"] as? [String: [String: [String: Any]]])
        let statuses = Set(paths.values.flatMap(\.values).flatMap { ($0["responses"] as? [String: Any])?.keys.map { $0 } ?? [] })
        let errors: [APIError] = [
            .badRequest(""), .notFound(""), .conflict(""), .unprocessable(""), .payloadTooLarge(limit: 1),
            .tooManyRequests("", retryAfter: 1), .unavailable(""),
        ]
        for error in errors {
            #expect(statuses.contains(String(error.status.code)), "\(error.status.code) is never documented")
        }
    }
}
