import Infrastructure

await TestDoubleMain.run(
  "FCMSandbox", usage: SandboxOptions.usage, parse: SandboxOptions.parse,
  helpRequested: SandboxOptions.HelpRequested.self,
  service: { options, logger in try SandboxService(options: options, logger: logger) })
