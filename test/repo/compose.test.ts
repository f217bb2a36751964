// No Docker engine runs here, so the compose file is checked as data: the properties the stack relies
// on, on the file as compose interpolates it from the shell's variables.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { authSchema, loadAuthConfig } from '@acct/auth';
import { desktopSchema, loadDesktopConfig } from '@acct/desktop';
import { gatewaySchema, loadGatewayConfig } from '@acct/gateway';
import { loadNotifierConfig, notifierSchema } from '@acct/notifier';
import { variablesOf } from '@acct/shared';
import { withMountedFiles } from '@acct/test-harness/mounted-files';

type Service = {
  image?: string;
  profiles?: string[];
  volumes?: string[];
  stop_grace_period?: string;
  restart?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  ports?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[]; timeout?: string; start_period?: string };
  hostname?: string;
  logging?: { driver: string; options?: Record<string, string> };
  depends_on?: Record<string, { condition: string }>;
  container_name?: string;
  deploy?: { resources?: { limits?: { memory?: string } } };
};

const root = path.resolve(__dirname, '..', '..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const productionText = fs.readFileSync(path.join(root, 'docker-compose.production.yml'), 'utf8');

/** Compose's interpolation: `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `$$`. */
function interpolate(text: string, shell: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, name, colon, op, arg, bare) => {
    if (match === '$$') return '$';
    if (bare) return shell[bare] ?? '';
    const value = shell[name];
    const missing = value === undefined || (colon === ':' && value === '');
    if (op === '-') return missing ? arg : value;
    if (op === '?') {
      if (missing) throw new Error(`compose: ${name}: ${arg}`);
      return value;
    }
    return value ?? '';
  });
}
const haText = fs.readFileSync(path.join(root, 'docker-compose.ha.yml'), 'utf8');

/**
 * The services as `docker compose -f docker-compose.yml [-f docker-compose.ha.yml] [-f docker-compose.production.yml]`
 * sees them: environments and dependencies merged key by key, other keys replaced.
 */
function composeWith(shell: Record<string, string>, production = false, ha = false): Record<string, Service> {
  const { services: all } = yaml.load(interpolate(composeText, shell)) as { services: Record<string, Service> };
  for (const text of [ha ? haText : undefined, production ? productionText : undefined]) {
    if (!text) continue;
    const { services: over } = yaml.load(interpolate(text, shell)) as { services: Record<string, Service> };
    for (const [name, service] of Object.entries(over)) {
      all[name] = { ...all[name], ...service, environment: { ...all[name]?.environment, ...service.environment }, depends_on: { ...all[name]?.depends_on, ...service.depends_on } };
    }
  }
  // As compose passes them: an empty value (`OTP_SECRET: ` once interpolated) is an empty string.
  for (const service of Object.values(all)) {
    if (service.environment) service.environment = Object.fromEntries(Object.entries(service.environment).map(([k, v]) => [k, v === null ? '' : String(v)]));
  }
  return all;
}

// What an operator puts in .env for a production start.
const productionShell = {
  OTP_SECRET: 'an-operator-chosen-secret-of-enough-length',
  MFA_ENCRYPTION_KEY: 'cd'.repeat(32),
  RESET_URL_BASE_ADMIN: 'https://admin.example.com/reset-password',
  RESET_URL_BASE_USER: 'https://app.example.com/reset-password',
  EMAIL_LINK_URL_BASE: 'https://app.example.com/account/email',
  SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
};
const services = composeWith(productionShell, true);
// `docker compose up` with no .env at all.
const outOfTheBox = composeWith({});
/** The containers that run once and exit (the key pair, production's variable check). */
const ONE_SHOT = new Set(['keygen', 'config-check']);
const appLoaders: Record<string, (env: NodeJS.ProcessEnv) => unknown> = {
  gateway: (env) => loadGatewayConfig(withMountedFiles(env)),
  auth: (env) => loadAuthConfig(withMountedFiles(env)),
  notifier: (env) => loadNotifierConfig(withMountedFiles(env)),
  desktop: (env) => loadDesktopConfig(withMountedFiles(env)),
};

describe('docker-compose.yml', () => {
  it('has the infrastructure, the mail catcher and the four services', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['mongo', 'redis', 'rabbitmq', 'mailpit', 'gateway', 'auth', 'notifier', 'desktop']),
    );
    expect(services.rabbitmq.image).toMatch(/management/);
  });

  it('publishes only the gateway port, and the mail catcher page (every reset link and code), Prometheus and Jaeger, all on loopback unless told', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => `${name}:${p}`));
    expect(published.sort()).toEqual(['gateway:127.0.0.1:8080:8080', 'jaeger:127.0.0.1:16686:16686', 'mailpit:127.0.0.1:8025:8025', 'prometheus:127.0.0.1:9090:9090']);
    expect([services.prometheus.profiles, services.jaeger.profiles]).toEqual([['observability'], ['observability']]);
  });

  it('traces only when the operator sets OTEL_EXPORTER_OTLP_ENDPOINT (to the profile\'s Jaeger, say)', () => {
    for (const name of Object.keys(appLoaders)) expect([name, services[name].environment?.OTEL_EXPORTER_OTLP_ENDPOINT]).toEqual([name, '']);
    const traced = composeWith({ ...productionShell, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' });
    for (const name of Object.keys(appLoaders)) expect([name, traced[name].environment?.OTEL_EXPORTER_OTLP_ENDPOINT]).toEqual([name, 'http://jaeger:4318']);
  });

  it("has Prometheus scrape every service's /metrics on its health port", () => {
    const config = yaml.load(fs.readFileSync(path.join(root, 'deploy/compose/prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ metrics_path: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    const [job] = config.scrape_configs;
    expect(job.metrics_path).toBe('/metrics');
    expect(job.dns_sd_configs[0].names.sort()).toEqual(Object.keys(appLoaders).sort());
    for (const name of Object.keys(appLoaders)) {
      expect([name, (appLoaders[name](services[name].environment ?? {}) as { HEALTH_PORT: number }).HEALTH_PORT]).toEqual([name, job.dns_sd_configs[0].port]);
    }
    expect(services.prometheus.volumes).toContain('./deploy/compose/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
  });

  it('gives every long-running service a healthcheck', () => {
    for (const [name, service] of Object.entries(services)) {
      if (ONE_SHOT.has(name)) continue;
      expect(`${name}: ${(service.healthcheck?.test ?? []).length > 0 ? 'has' : 'lacks'} a healthcheck`).toBe(`${name}: has a healthcheck`);
    }
  });

  it('starts services only after what they depend on is healthy', () => {
    for (const name of Object.keys(appLoaders)) {
      const dependsOn = services[name].depends_on ?? {};
      expect(Object.keys(dependsOn).length).toBeGreaterThan(0);
      for (const [dep, { condition }] of Object.entries(dependsOn)) {
        expect([name, dep, condition]).toEqual([name, dep, ONE_SHOT.has(dep) ? 'service_completed_successfully' : 'service_healthy']);
      }
    }
    expect(Object.keys(services.gateway.depends_on ?? {})).toEqual(expect.arrayContaining(['auth', 'desktop']));
  });

  it('counts the broker healthy only once it accepts AMQP connections, here and in the clustered stores', () => {
    const ha = composeWith({ ...productionShell, RABBITMQ_ERLANG_COOKIE: 'a-long-random-cookie-of-the-operator' }, true, true);
    for (const [name, service] of [['rabbitmq', services.rabbitmq], ...['rabbitmq', 'rabbitmq-2', 'rabbitmq-3'].map((n) => [`ha ${n}`, ha[n]] as const)] as const) {
      expect([name, service.healthcheck?.test]).toEqual([name, ['CMD', 'rabbitmq-diagnostics', '-q', 'check_port_connectivity']]);
    }
  });

  it('refuses an image build without SERVICE at once, saying what to pass', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const firstRun = /^FROM [^\n]+ AS build\nARG SERVICE\n(?:#[^\n]*\n)*RUN ((?:[^\n]*\\\n)*[^\n]*)/m.exec(dockerfile);
    expect(firstRun).not.toBeNull();
    const script = firstRun![1].replace(/\\\n/g, '\n');
    for (const [service, status] of [['', 1], ['auth ', 1], ['billing', 1], ['auth', 0], ['notifier', 0]] as const) {
      const run = spawnSync('sh', ['-c', script], { env: { SERVICE: service }, encoding: 'utf8' });
      expect([service, run.status]).toEqual([service, status]);
      if (status === 1) expect(run.stderr).toMatch(/docker build needs --build-arg SERVICE=<gateway\|auth\|notifier\|desktop>/);
    }
  });

  it('builds each service from the multi-stage Dockerfile with its own SERVICE argument', () => {
    for (const name of Object.keys(appLoaders)) {
      expect(services[name].build?.args?.SERVICE).toBe(name);
      expect(services[name].build?.dockerfile).toBe('Dockerfile');
    }
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('gives each service a V8 heap budget in the image, under its container memory limit', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const heapMb = Number(/NODE_OPTIONS=--max-old-space-size=(\d+)/.exec(dockerfile)?.[1]);
    expect(heapMb).toBeGreaterThanOrEqual(128);
    for (const name of Object.keys(appLoaders)) {
      const memory = services[name].deploy?.resources?.limits?.memory ?? '';
      const limitMb = Number(/^(\d+)M$/.exec(memory)?.[1]);
      // Room beyond the old generation for the young generation, code and buffers.
      expect([name, limitMb >= heapMb + 128]).toEqual([name, true]);
    }
  });

  it('lets the notifier scale: no fixed container name and no published port', () => {
    expect(services.notifier.container_name).toBeUndefined();
    expect(services.notifier.ports).toBeUndefined();
  });

  /** What production's config-check prints and answers, run as compose would run it. */
  const check = (shell: Record<string, string>) => {
    const container = composeWith(shell, true)['config-check'];
    const script = path.join(root, container.volumes![0].split(':')[0]);
    const run = spawnSync(process.execPath, [script], { env: { PATH: process.env.PATH, ...container.environment }, encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  };

  it('names every variable a production .env is missing in one run, before any service starts', () => {
    const none = check({});
    expect(none.status).toBe(1);
    for (const name of Object.keys(productionShell)) expect(none.output).toContain(`  ${name} (`);
    expect(check(productionShell)).toMatchObject({ status: 0 });
    for (const name of ['keygen', ...Object.keys(appLoaders)]) expect([name, services[name].depends_on?.['config-check']]).toEqual([name, { condition: 'service_completed_successfully' }]);
  });

  it.each(Object.keys(productionShell))('refuses a production start without %s, naming it and nothing else', (missing) => {
    const shell: Record<string, string> = { ...productionShell };
    delete shell[missing];
    const { status, output } = check(shell);
    expect(status).toBe(1);
    expect(output.match(/^ {2}[A-Z_]+ \(/gm)).toEqual([`  ${missing} (`]);
  });

  it('comes up with no .env at all: development mode, every service config accepted, published on this machine only', () => {
    for (const name of Object.keys(appLoaders)) {
      expect(outOfTheBox[name].environment?.NODE_ENV).toBe('development');
      expect(() => appLoaders[name](outOfTheBox[name].environment ?? {})).not.toThrow();
    }
    const published = Object.values(outOfTheBox).flatMap((s) => s.ports ?? []);
    expect(published.every((p) => p.startsWith('127.0.0.1:'))).toBe(true);
    expect(outOfTheBox.notifier.environment?.SMTP_URL).toBe('smtp://mailpit:1025');
    expect(composeWith({ GATEWAY_ADDRESS: '0.0.0.0' }).gateway.ports).toEqual(['0.0.0.0:8080:8080']);
  });

  it('keeps the broker node name (and with it every queued message) across down and up, and rotates every log', () => {
    expect(services.rabbitmq.hostname).toBe('rabbitmq');
    for (const [name, service] of Object.entries(services)) {
      expect([name, service.logging?.driver, service.logging?.options?.['max-size']]).toEqual([name, 'json-file', '10m']);
      expect([name, Boolean(service.deploy?.resources?.limits?.memory)]).toEqual([name, true]);
    }
  });

  it('gives healthchecks the time a busy machine needs', () => {
    for (const [name, service] of Object.entries(services)) {
      if (!service.healthcheck) continue;
      const seconds = (v?: string) => Number(/^(\d+)s$/.exec(v ?? '')?.[1]);
      expect([name, seconds(service.healthcheck.timeout) >= 10, seconds(service.healthcheck.start_period) >= 30]).toEqual([name, true, true]);
    }
  });

  it("gives each service more time to stop than its drain's deadline", () => {
    for (const name of Object.keys(appLoaders)) {
      const config = appLoaders[name](services[name].environment ?? {}) as { SHUTDOWN_DELAY_MS: number; SHUTDOWN_TIMEOUT_MS: number };
      const graceMs = Number(/^(\d+)s$/.exec(services[name].stop_grace_period ?? '')?.[1]) * 1000;
      expect([name, graceMs > config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS]).toEqual([name, true]);
    }
  });

  it('restarts every long-running container unless stopped, from pinned images', () => {
    for (const [name, service] of Object.entries(services)) {
      expect([name, service.restart]).toEqual([name, ONE_SHOT.has(name) ? 'no' : 'unless-stopped']);
      if (service.image) expect(`${name}: ${service.image}`).toMatch(/^[a-z-]+: [^:]+:(?!latest$)[\w.-]+$/);
    }
  });

  it.each(Object.keys(appLoaders))('gives %s an environment its config accepts, reachable from other containers', (name) => {
    const environment = services[name].environment ?? {};
    expect(() => appLoaders[name](environment)).not.toThrow();
    expect(environment.HOST).toBe('0.0.0.0');
    expect(environment.NODE_ENV).toBe('production');
    if (name !== 'notifier') expect(environment.JWT_PUBLIC_KEY_FILE ?? environment.JWT_PRIVATE_KEY_FILE).toMatch(/^\/keys/);
    for (const [key, value] of Object.entries(environment)) {
      if (/_URL$/.test(key) && !/^RESET_URL/.test(key)) expect(`${key}=${value}`).not.toMatch(/127\.0\.0\.1|localhost/);
    }
  });
});

describe('every variable a service reads can be set where compose runs it', () => {
  const schemas = { auth: authSchema, gateway: gatewaySchema, notifier: notifierSchema, desktop: desktopSchema };
  /** Variables compose gives no pass-through, each with the way it is set instead (scripts/compose-env.mjs reads the same file). */
  const REASONS: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, 'deploy/compose/not-passed-through.json'), 'utf8'));

  it('holds each pass-through block as npm run compose:env writes it from the schemas (a new setting needs no hand edit)', () => {
    const run = spawnSync(process.execPath, [path.join(root, 'scripts/compose-env.mjs'), '--check'], { encoding: 'utf8' });
    expect([run.status, run.stderr]).toEqual([0, '']);
  });

  it.each([
    ['docker-compose.yml', composeWith({})],
    ['with docker-compose.production.yml', services],
    ['with docker-compose.ha.yml and production', composeWith({ ...productionShell, RABBITMQ_ERLANG_COOKIE: 'a-long-random-cookie-of-the-operator' }, true, true)],
  ])('%s gives each service every variable of its schema, or a reason it need not', (_files, composed) => {
    const unreachable = Object.entries(schemas).flatMap(([name, schema]) =>
      variablesOf(schema)
        .filter((variable) => !(variable in (composed[name].environment ?? {})) && !(variable in REASONS))
        .map((variable) => `${name}: ${variable}`),
    );
    expect(unreachable).toEqual([]);
  });

  it('passes a variable through from .env, so that setting it there reaches the service (TRUST_PROXY, CORS_ORIGINS, OIDC_*, FIREBASE_CREDENTIALS)', () => {
    // (This file's interpolation is textual, so a JSON value would read as YAML here: a plain one stands in.)
    const shell = { TRUST_PROXY: '1', CORS_ORIGINS: 'https://admin.example.com', OIDC_APP_URLS: 'https://app.example.com/', FIREBASE_CREDENTIALS: 'credentials-json', AUTH_MONGO_DB: 'accounts_eu' };
    const composed = composeWith(shell);
    expect([composed.gateway.environment!.TRUST_PROXY, composed.gateway.environment!.CORS_ORIGINS]).toEqual(['1', 'https://admin.example.com']);
    expect(composed.auth.environment!.OIDC_APP_URLS).toBe('https://app.example.com/');
    expect(composed.notifier.environment!.FIREBASE_CREDENTIALS).toBe('credentials-json');
    // A service's own namespace is named for it: auth's database is not the notifier's.
    expect([composed.auth.environment!.MONGO_DB, composed.notifier.environment!.MONGO_DB]).toEqual(['accounts_eu', '']);
  });
});

describe('docker-compose.ha.yml (the clustered stores)', () => {
  const shell = { ...productionShell, RABBITMQ_ERLANG_COOKIE: 'a-long-random-cookie-of-the-operator' };
  const ha = composeWith(shell, true, true);
  const command = (name: string) => (ha[name] as Service & { command?: string[] }).command ?? [];

  it('runs three Redis nodes and three sentinels, three RabbitMQ nodes in one cluster and a three-member replica set', () => {
    // Every node and sentinel from the scripts Kubernetes uses (test/ha/sentinel-restart.test.ts runs them through a failover and a restart).
    for (const n of ['redis', 'redis-replica-1', 'redis-replica-2']) {
      expect([n, command(n), ha[n].environment?.REDIS_SELF, ha[n].environment?.REDIS_FIRST_MASTER]).toEqual([n, ['sh', '/scripts/redis-start.sh'], n, 'redis']);
      expect(ha[n].volumes).toEqual(expect.arrayContaining(['./deploy/kubernetes/stores-ha/redis-start.sh:/scripts/redis-start.sh:ro', './deploy/kubernetes/stores-ha/redis-master.sh:/scripts/redis-master.sh:ro']));
      // A node asks the sentinels who is master: they start first, whatever state the nodes are in.
      expect(Object.keys(ha[n].depends_on ?? {}).filter((d) => d.startsWith('redis-sentinel'))).toHaveLength(3);
    }
    for (const n of [1, 2, 3]) {
      const name = `redis-sentinel-${n}`;
      expect([name, command(name), ha[name].environment?.SENTINEL_SELF]).toEqual([name, ['sh', '/scripts/sentinel-start.sh'], name]);
      // What a sentinel decided lives on its volume.
      expect(ha[name].volumes).toEqual([`redis-sentinel-${n}-data:/data`, './deploy/kubernetes/stores-ha/sentinel-start.sh:/scripts/sentinel-start.sh:ro', './deploy/kubernetes/stores-ha/redis-master.sh:/scripts/redis-master.sh:ro']);
      expect(Object.keys(ha[name].depends_on ?? {}).some((d) => d.startsWith('redis'))).toBe(false);
    }
    for (const n of ['rabbitmq', 'rabbitmq-2', 'rabbitmq-3']) {
      expect([n, ha[n].hostname, ha[n].volumes]).toEqual([n, n, expect.arrayContaining(['./deploy/compose/rabbitmq-cluster.conf:/etc/rabbitmq/conf.d/20-cluster.conf:ro'])]);
    }
    const peers = fs.readFileSync(path.join(root, 'deploy/compose/rabbitmq-cluster.conf'), 'utf8').match(/nodes\.\d = (\S+)/g);
    expect(peers).toEqual(['nodes.1 = rabbit@rabbitmq', 'nodes.2 = rabbit@rabbitmq-2', 'nodes.3 = rabbit@rabbitmq-3']);
    for (const n of ['mongo', 'mongo-2', 'mongo-3']) expect(command(n)).toEqual(['mongod', '--replSet', 'rs0', '--bind_ip_all']);
    expect(ha.mongo.healthcheck!.test.join(' ')).toMatch(/rs\.initiate/);
  });

  it('gives every service URLs of the three, which its config accepts in production, and auth waits for a replica', () => {
    for (const [name, load] of Object.entries(appLoaders)) {
      const env = ha[name].environment!;
      expect([name, env.REDIS_URL, env.AMQP_URL.split(',').length, env.MONGO_URL]).toEqual([name, 'redis+sentinel://redis-sentinel-1:26379,redis-sentinel-2:26379,redis-sentinel-3:26379/acct', 3, 'mongodb://mongo:27017,mongo-2:27017,mongo-3:27017/?replicaSet=rs0']);
      expect(() => load(env)).not.toThrow();
    }
    expect(ha.auth.environment!.REDIS_WAIT_REPLICAS).toBe('1');
  });

  it('refuses to start the RabbitMQ nodes without their shared cookie', () => {
    expect(() => composeWith(productionShell, true, true)).toThrow(/RABBITMQ_ERLANG_COOKIE/);
  });
});
