// The release tool's arguments: a full publish is accepted and normalised; anything else is refused with a clear message.
import { parseReleaseCommand } from '../src/release-cli';

const sha = 'a'.repeat(64);

describe('the release tool arguments', () => {
  it('accepts a full publish and normalises the version', () => {
    expect(parseReleaseCommand(['publish', '--platform', 'linux', '--version', 'v1.4.0', '--url', 'https://x.example/a', '--sha256', sha.toUpperCase(), '--mandatory'])).toMatchObject({
      action: 'publish',
      version: '1.4.0',
      sha256: sha,
      mandatory: true,
    });
  });

  it.each([
    [['publish', '--platform', 'beos', '--version', '1.0.0'], /--platform must be one of/],
    [['publish', '--platform', 'linux', '--version', 'one'], /--version must be a semantic version/],
    [['publish', '--platform', 'linux', '--version', '1.0.0', '--url', 'x', '--sha256', sha], /--url must be an absolute URL/],
    [['publish', '--platform', 'linux', '--version', '1.0.0', '--url', 'https://x.example', '--sha256', 'abc'], /--sha256 must be 64/],
    [['ship'], /unknown or missing command/],
  ])('refuses %j with a clear message', (argv, message) => {
    expect(() => parseReleaseCommand(argv as string[])).toThrow(message);
  });
});
