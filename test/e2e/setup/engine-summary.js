const { writeFileSync } = require('node:fs');

/**
 * A jest reporter: with E2E_SUMMARY_FILE set, writes how many tests passed, failed and
 * were skipped per engine (jest project), so CI can fail when one engine's half never ran.
 */
class EngineSummary {
  onRunComplete(_contexts, results) {
    const file = process.env.E2E_SUMMARY_FILE;
    if (!file) return;
    const engines = {};
    for (const result of results.testResults) {
      const name = result.displayName?.name ?? 'default';
      const engine = (engines[name] ??= { passed: 0, failed: 0, skipped: 0 });
      engine.passed += result.numPassingTests;
      engine.failed += result.numFailingTests;
      engine.skipped += result.numPendingTests + result.numTodoTests;
    }
    writeFileSync(file, `${JSON.stringify(engines)}\n`);
  }
}

module.exports = EngineSummary;
