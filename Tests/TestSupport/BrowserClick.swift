import Foundation

/// A person clicking on a page in headless Chromium: opens `pageURL`, waits until `ready` (a
/// JavaScript expression) is true, runs `click` as a user's gesture, waits until `done` is
/// true, and gives back the page's DOM then.
public enum BrowserClick {
  public struct Settings: Encodable, Sendable {
    public var pageURL: String
    public var ready: String
    public var click: String
    public var done: String
    public var timeoutMs: Int

    public init(
      pageURL: String, ready: String, click: String, done: String, timeoutMs: Int = 20_000
    ) {
      self.pageURL = pageURL
      self.ready = ready
      self.click = click
      self.done = done
      self.timeoutMs = timeoutMs
    }
  }

  struct Line: DevToolsLine {
    var event: String
    var dom: String?
    var error: String?
  }

  public struct Failed: Error, CustomStringConvertible {
    public let description: String
  }

  /// The DOM once `done` held.
  public static func run(_ settings: Settings) async throws -> String {
    let run = try DevToolsRun<Line>(script: script, page: settings)
    defer { run.stop() }
    let line = try await run.wait(for: "done", timeout: .seconds(60))
    guard let dom = line.dom else {
      throw Failed(description: "the click did not happen: \(line.error ?? "") \(run.errors())")
    }
    return dom
  }

  static let script =
    HeadlessBrowser.devToolsPrelude + "\n" + #"""
      async function main() {
        const { targetId } = await send("Target.createTarget", { url: "about:blank" });
        const { sessionId } = await send("Target.attachToTarget", { targetId: targetId, flatten: true });
        const evaluate = async (expression, userGesture) => (await send("Runtime.evaluate",
          { expression: expression, awaitPromise: true, returnByValue: true, userGesture: !!userGesture }, sessionId)).result.value;
        await send("Page.enable", {}, sessionId);
        await send("Page.navigate", { url: settings.pageURL }, sessionId);
        await until("the page to be ready: " + settings.ready, () => evaluate(settings.ready));
        await evaluate(settings.click, true);
        await until("the click's effect: " + settings.done, () => evaluate(settings.done));
        say({ event: "done", dom: await evaluate("document.documentElement.outerHTML") });
      }

      main().then(() => { chromium.kill(); process.exit(0); },
        (error) => { say({ event: "failed", error: String(error && error.stack || error) }); chromium.kill(); process.exit(1); });
      """#
}
