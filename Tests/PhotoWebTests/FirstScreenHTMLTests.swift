import Foundation
import Mustache
import PhotoPipeline
@testable import PhotoWeb
import Testing

@Suite("The first screen rendered with the page")
struct FirstScreenHTMLTests {
    /// The repository's templates, as the server reads them.
    static func templates() async throws -> MustacheLibrary {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try await MustacheLibrary(directory: root.appendingPathComponent("Templates").path)
    }

    @Test func rowsAreMarkedUpAsThePageRendersThemWithTextEscaped() async throws {
        let templates = try await Self.templates()
        let screen = FirstScreen(rows: [
            .init(index: 0, name: #"Tom & "Jerry" <b>"#, state: .filtered),
            .init(index: 1, name: "Pier", state: .failed(reason: "HTTP 404 <not found>")),
            .init(index: 2, name: "Canal", state: .downloading(progress: 0.425)),
        ], count: 300, templates: templates, basePath: "/demo", staticBase: "/demo/static/v/abc")
        let html = screen.listHTML
        #expect(html.contains(#"<div id="rows" class="rows" role="none" style="height: 24000px">"#))
        #expect(html.contains(#"aria-busy="false""#) && html.contains(#"role="status" hidden>"#))
        #expect(html.contains(#"src="/demo/photos/0/thumbnail""#) && !html.contains(#"src="/demo/photos/1/"#))
        #expect(html.contains("Tom &amp; &quot;Jerry&quot; &lt;b&gt;") && !html.contains("<b>"))
        #expect(html.contains(#"alt="Pier failed to load" decoding="async" draggable="false" src="/demo/static/v/abc/failed.svg""#))
        #expect(html.contains(#"title="HTTP 404 &lt;not found&gt;">HTTP 404 &lt;not found&gt;</span>"#))
        #expect(html.contains(#"aria-label="Pier, Failed to load: HTTP 404 &lt;not found&gt;. Enter tries again""#))
        #expect(html.contains(#"data-state="downloading""#) && html.contains("Downloading… 43%"))
        #expect(html.contains(#"style="transform: translateY(160px)""#) && html.contains(">#3</span>"))
        #expect(screen.preloads == #"<link rel="preload" as="image" fetchpriority="high" href="/demo/photos/0/thumbnail">"# + "\n")
    }

    @Test func whileTheListLoadsThePageSaysSoAndHasNoRows() async throws {
        let templates = try await Self.templates()
        let html = FirstScreen(rows: [], count: nil, templates: templates, basePath: "", staticBase: "").listHTML
        #expect(html.contains(#"role="status">Loading photo list…</div>"#) && html.contains(#"aria-busy="true""#))
        #expect(!html.contains(#"class="row""#))
        #expect(FirstScreen(rows: [], count: 0, templates: templates, basePath: "", staticBase: "").listHTML.contains("The photo list is empty."))
    }

    @Test(arguments: [
        PhotoRecordState.new, .downloading(progress: nil), .downloading(progress: 0.5), .downloaded, .filtering, .filtered,
        .failed(reason: "Not an image", detail: ""),
    ])
    func everyStateIsTheRowPartialWithTheWordsOfTheTable(state: PhotoRecordState) async throws {
        let templates = try await Self.templates()
        let html = FirstScreen(rows: [.init(index: 4, name: "Quay", state: state)], count: 9, templates: templates, basePath: "", staticBase: "/s")
            .listHTML
        let status = RowWords.status(of: state)
        #expect(html.contains(#"data-state="\#(state.name)""#))
        #expect(html.contains(#"<span class="status" data-role="status">\#(status)</span>"#))
        #expect(html.contains(#"aria-label="Quay, \#(status)"#))
        #expect(html.contains(#"aria-hidden="true" hidden>Try again"#) == (state.name != "failed"))
    }
}
