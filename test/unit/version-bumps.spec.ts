import { VersionBumps } from '../../src/common/cache/version-bumps';

/** What a write request owes the data version after its transactions reported, by its status. */
describe('VersionBumps', () => {
  const after = (report: (bumps: VersionBumps) => void) => {
    const bumps = new VersionBumps();
    report(bumps);
    return bumps;
  };

  it('owes nothing after a tracked write that committed with its bump, whatever the status', () => {
    const bumps = after((b) => b.committedWithBump());
    expect([bumps.owed(200), bumps.owed(201), bumps.owed(503), bumps.owed(404)]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('owes a bump once a write without tracked changes went to COMMIT, even with a 4xx after it', () => {
    const bumps = after((b) => {
      b.committedWithBump();
      b.committingWithoutBump();
    });
    expect([bumps.owed(200), bumps.owed(409), bumps.owed(500)]).toEqual([true, true, true]);
  });

  it('owes one after a success or a 5xx that reported nothing (it may have written), none after a 4xx', () => {
    const bumps = new VersionBumps();
    expect([bumps.owed(200), bumps.owed(500), bumps.owed(503), bumps.owed(400)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it("owes nothing when the request's untracked writes are read by no cache (an import), whatever it reported", () => {
    const bumps = after((b) => {
      b.untrackedWritesUncached();
      b.committingWithoutBump();
    });
    expect([bumps.owed(200), bumps.owed(201), bumps.owed(500)]).toEqual([false, false, false]);
  });
});
