// How the test run finds MongoDB: MONGO_URL, or a server of its own; never whatever happens to
// listen on 27017 (a developer's `npm start` stand-in would mix its data with the tests').
import net from 'node:net';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deps = require('../../scripts/lib/dependencies.js');

describe('resolveMongo for tests', () => {
  const saved = process.env.MONGO_URL;
  // Something listening where the standard port would be (a free port here: 27017 itself may be
  // in use by the npm start test running beside this one).
  const squatter = net.createServer((socket) => socket.destroy());
  let standardPort: number;
  beforeAll(async () => {
    delete process.env.MONGO_URL;
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', () => resolve()));
    standardPort = (squatter.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    process.env.MONGO_URL = saved;
    await new Promise((resolve) => squatter.close(resolve));
  });

  const own = async () => ({ url: 'mongodb://127.0.0.1:1/own', source: 'own stand-in' });

  it('ignores a server on the standard port and starts its own', async () => {
    const resolved = await deps.resolveMongo({ containers: false, probeStandardPort: false, standardPort, startStandin: own });
    expect(resolved.source).toBe('own stand-in');
  });

  it('takes MONGO_URL when it is set', async () => {
    process.env.MONGO_URL = 'mongodb://db.example:27017';
    try {
      expect((await deps.resolveMongo({ containers: false, probeStandardPort: false, standardPort, startStandin: own })).url).toBe('mongodb://db.example:27017');
    } finally {
      delete process.env.MONGO_URL;
    }
  });

  it('is what npm start does differently: it takes the server on the standard port', async () => {
    expect((await deps.resolveMongo({ containers: false, standardPort, startStandin: own })).source).toBe(`local server on port ${standardPort}`);
  });
});
