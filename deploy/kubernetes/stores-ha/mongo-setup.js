// Run by mongo-setup.sh beside mongo-0: initiate rs0 if it is not, wait for a primary, then make the
// administrator `root` and the stack's user `account-service` (readWrite on MONGO_APP_DATABASES) if
// they are missing; the stack's password is set again on every run, so changing it in the Secret
// `mongo-auth` and restarting mongo-0 rotates it. No password is printed.
const rootPassword = process.env.MONGO_ROOT_PASSWORD;
const appPassword = process.env.MONGO_APP_PASSWORD;
if (!rootPassword || !appPassword) throw new Error('mongo-setup: MONGO_ROOT_PASSWORD and MONGO_APP_PASSWORD are required (Secret mongo-auth)');
const databases = (process.env.MONGO_APP_DATABASES || 'auth,desktop,notifier').split(',').filter(Boolean);
const members = [0, 1, 2].map((i) => ({ _id: i, host: `mongo-${i}.mongo.account-stores.svc.cluster.local:27017` }));

let admin = db.getSiblingDB('admin');
let signedIn = false;
try {
  admin.auth('root', rootPassword);
  signedIn = true;
} catch {
  // No user yet (the localhost exception), or a wrong password, which the next step reports as Unauthorized.
}

try {
  rs.status();
} catch (e) {
  if (e.codeName !== 'NotYetInitialized') throw e;
  rs.initiate({ _id: 'rs0', members });
  print('mongo-setup: initiated rs0');
}

// Users are written on the primary: this member once it is elected, or, after a failover, whichever is.
let hello = db.hello();
for (let waited = 0; !hello.primary; waited++) {
  if (waited === 120) throw new Error('mongo-setup: rs0 elected no primary within 2 minutes');
  sleep(1000);
  hello = db.hello();
}
if (!hello.isWritablePrimary) {
  if (!signedIn) throw new Error(`mongo-setup: ${hello.primary} is primary and this member has no users yet; restart mongo-0 once rs0 is healthy`);
  admin = new Mongo(`mongodb://${hello.primary}/?directConnection=true`).getDB('admin');
  admin.auth('root', rootPassword);
}

if (!signedIn) {
  admin.createUser({ user: 'root', pwd: rootPassword, roles: ['root'] });
  admin.auth('root', rootPassword);
  print('mongo-setup: made the administrator root');
}
const roles = databases.map((name) => ({ role: 'readWrite', db: name }));
if (admin.getUser('account-service')) {
  admin.updateUser('account-service', { pwd: appPassword, roles }, { w: 'majority' });
  print(`mongo-setup: account-service kept (readWrite on ${databases.join(', ')}), its password set from the Secret`);
} else {
  admin.createUser({ user: 'account-service', pwd: appPassword, roles }, { w: 'majority' });
  print(`mongo-setup: made account-service (readWrite on ${databases.join(', ')})`);
}
