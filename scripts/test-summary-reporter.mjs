// A vitest reporter for scripts/test.mjs: writes the run's counts and every
// skipped test with the reason it gave (`ctx.skip(reason)`) as JSON to
// $WHEELHOUSE_TEST_SUMMARY. It prints nothing itself, so no file is announced
// that the run later deletes.
import fs from 'node:fs';
import path from 'node:path';

export default class TestSummaryReporter {
  onTestRunEnd(testModules) {
    const target = process.env.WHEELHOUSE_TEST_SUMMARY;
    if (!target) return;
    const summary = { passed: 0, failed: 0, skipped: [] };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') summary.passed += 1;
        else if (result.state === 'failed') summary.failed += 1;
        else if (result.state === 'skipped') {
          summary.skipped.push({ file: path.relative(process.cwd(), module.moduleId), name: test.fullName, reason: result.note ?? null });
        }
      }
    }
    fs.writeFileSync(target, JSON.stringify(summary));
  }
}
