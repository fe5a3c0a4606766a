import Foundation
import TestSupport

/// A person using the web inbox in headless Chromium, step by step, through the DevTools
/// protocol: opening tabs, reloading, waiting for what the page shows, reading it back and
/// taking screenshots. The steps run in order in one browser; the test reads the lines they
/// write while it changes the database between them.
struct InboxBrowser {
  /// One thing the person does or looks for; exactly one field set.
  struct Step: Encodable, Sendable {
    /// Opens a new tab on this URL; the following steps act on it.
    var open: String?
    var reload: Bool?
    /// A JavaScript expression to wait for, polled until it is truthy.
    var until: String?
    /// Writes a line named `say` with `value`, the expression's value as a string.
    var say: String?
    var value: String?
    /// Writes a PNG of the tab to this path.
    var screenshot: String?

    static func open(_ url: String) -> Step { Step(open: url) }
    static let reload = Step(reload: true)
    static func until(_ expression: String) -> Step { Step(until: expression) }
    static func say(_ name: String, _ expression: String) -> Step {
      Step(say: name, value: expression)
    }
    /// A screenshot kept as `docs/images/<name>` only when `MOWDECK_SCREENSHOTS_DIR` is
    /// set (so a test run never rewrites the docs); otherwise no step.
    static func screenshot(_ name: String) -> [Step] {
      guard let directory = ProcessInfo.processInfo.environment["MOWDECK_SCREENSHOTS_DIR"],
        !directory.isEmpty
      else { return [] }
      return [Step(screenshot: directory + "/" + name)]
    }
  }

  struct Settings: Encodable, Sendable {
    var steps: [Step]
    var timeoutMs: Int
  }

  struct Line: DevToolsLine {
    var event: String
    var value: String?
    var error: String?
  }

  struct Failed: Error, CustomStringConvertible {
    let description: String
  }

  private let run: DevToolsRun<Line>

  init(_ steps: [Step], timeoutMs: Int = 30_000) throws {
    run = try DevToolsRun(script: Self.script, page: Settings(steps: steps, timeoutMs: timeoutMs))
  }

  /// The value of the `say` step named `name`, once the browser got there.
  func value(_ name: String) async throws -> String {
    let line = try await run.wait(for: name, timeout: .seconds(90))
    guard line.event == name, let value = line.value else {
      throw Failed(
        description: "the browser failed before \(name): \(line.error ?? "") \(run.errors())")
    }
    return value
  }

  func stop() { run.stop() }

  /// Runs `steps`, gives `body` the browser to read, and stops it however `body` ends.
  static func with(_ steps: [Step], _ body: (InboxBrowser) async throws -> Void) async throws {
    let browser = try InboxBrowser(steps)
    defer { browser.stop() }
    try await body(browser)
  }

  static let script =
    HeadlessBrowser.devToolsPrelude + "\n" + #"""
      async function main() {
        let sessionId = null;
        const evaluate = async (expression) => {
          const answer = await send("Runtime.evaluate",
            { expression: expression, awaitPromise: true, returnByValue: true }, sessionId);
          return answer.exceptionDetails ? undefined : answer.result.value;
        };
        const loaded = async () => until("the page to load", () => evaluate("document.readyState === 'complete'"));
        for (const step of settings.steps) {
          if (step.open) {
            const { targetId } = await send("Target.createTarget", { url: "about:blank" });
            sessionId = (await send("Target.attachToTarget", { targetId: targetId, flatten: true })).sessionId;
            await send("Page.enable", {}, sessionId);
            await send("Emulation.setDeviceMetricsOverride",
              { width: 720, height: 640, deviceScaleFactor: 1, mobile: false }, sessionId);
            await send("Page.navigate", { url: step.open }, sessionId);
            await sleep(200);
            await loaded();
          } else if (step.reload) {
            await send("Page.reload", {}, sessionId);
            await sleep(200);
            await loaded();
          } else if (step.until) {
            await until(step.until, () => evaluate(step.until));
          } else if (step.say) {
            say({ event: step.say, value: String(await evaluate(step.value)) });
          } else if (step.screenshot) {
            const { data } = await send("Page.captureScreenshot", { format: "png" }, sessionId);
            fs.writeFileSync(step.screenshot, Buffer.from(data, "base64"));
          }
        }
        say({ event: "done", value: "" });
      }

      main().then(() => { chromium.kill(); process.exit(0); },
        (error) => { say({ event: "failed", error: String(error && error.stack || error) }); chromium.kill(); process.exit(1); });
      """#
}
