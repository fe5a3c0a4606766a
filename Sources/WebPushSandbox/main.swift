import Infrastructure

await TestDoubleMain.run(
  "WebPushSandbox", usage: SandboxOptions.usage,
  parse: { arguments in
    do {
      return try SandboxOptions.parse(arguments)
    } catch is SandboxOptions.HelpRequested {
      return nil
    }
  },
  service: { options, logger in try SandboxService(options: options, logger: logger) })
