// deploy/kubernetes, rendered by kustomize (kubectl kustomize) and checked against the Kubernetes
// API schemas (kubernetes-models' validators), then for what the stack relies on: each
// Deployment's environment is one its service's config accepts in production, probes on the health
// port, memory above the heap budget, a grace period above the drain's deadline, budgets,
// autoscalers, network policies and a TLS ingress.
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

const root = path.resolve(__dirname, '..', '..');
type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: any; data?: Record<string, string> };

function render(dir: string): Doc[] {
  const run = spawnSync('kubectl', ['kustomize', path.join(root, dir)], { encoding: 'utf8' });
  if (run.error) throw new Error(`this test renders with kubectl kustomize: ${run.error.message} (install kubectl)`);
  if (run.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${run.stderr}`);
  return yaml.loadAll(run.stdout) as Doc[];
}

const docs = render('deploy/kubernetes/overlays/production');
const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
const named = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
const services = {
  gateway: { load: loadGatewayConfig, schema: gatewaySchema },
  auth: { load: loadAuthConfig, schema: authSchema },
  desktop: { load: loadDesktopConfig, schema: desktopSchema },
  notifier: { load: loadNotifierConfig, schema: notifierSchema },
} as const;

// What the operator's Secrets hold, as plausible values (their real values are never committed).
const SECRET_VALUES: Record<string, string> = {
  MONGO_URL: 'mongodb://mongo.databases:27017',
  REDIS_URL: 'redis://redis.databases:6379',
  AMQP_URL: 'amqp://account:secret@rabbitmq.messaging:5672',
  SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
  OTP_SECRET: 'x'.repeat(48),
  MFA_ENCRYPTION_KEY: 'ab'.repeat(32),
  'credentials.json': '{"project_id":"p"}',
};

/** A Deployment's environment as its container would see it. */
function environmentOf(deployment: Doc): Record<string, string> {
  const container = deployment.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) if (source.configMapRef) Object.assign(env, named('ConfigMap', source.configMapRef.name)?.data);
  for (const item of container.env ?? []) {
    if (item.value !== undefined) env[item.name] = item.value;
    else if (item.valueFrom?.configMapKeyRef) env[item.name] = named('ConfigMap', item.valueFrom.configMapKeyRef.name)!.data![item.valueFrom.configMapKeyRef.key];
    else if (item.valueFrom?.secretKeyRef && !item.valueFrom.secretKeyRef.optional) env[item.name] = SECRET_VALUES[item.valueFrom.secretKeyRef.key];
  }
  return env;
}

/** Whether a label selector (matchLabels and matchExpressions, or a Service's plain map) selects these labels. */
function selects(selector: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> } | Record<string, string>, labels: Record<string, string>): boolean {
  const structured = 'matchLabels' in selector || 'matchExpressions' in selector;
  const matchLabels = (structured ? (selector as { matchLabels?: Record<string, string> }).matchLabels : selector) ?? {};
  const expressions = structured ? ((selector as { matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> }).matchExpressions ?? []) : [];
  return (
    Object.entries(matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v) &&
    expressions.every((e) => {
      if (e.operator === 'In') return e.values!.includes(labels[e.key]);
      if (e.operator === 'NotIn') return !e.values!.includes(labels[e.key]);
      if (e.operator === 'Exists') return e.key in labels;
      return !(e.key in labels);
    })
  );
}

describe('deploy/kubernetes (production overlay)', () => {
  it('lets the operator set every variable each service reads: its own ConfigMap and Secret, loaded whole, optional', () => {
    for (const name of Object.keys(services)) {
      const container = named('Deployment', name)!.spec.template.spec.containers[0];
      const sources = (container.envFrom ?? []).map((s: { configMapRef?: { name: string; optional?: boolean }; secretRef?: { name: string; optional?: boolean } }) =>
        s.configMapRef ? `ConfigMap ${s.configMapRef.name.replace(/-[a-z0-9]{10}$/, '')}${s.configMapRef.optional ? ' (optional)' : ''}` : `Secret ${s.secretRef!.name}${s.secretRef!.optional ? ' (optional)' : ''}`,
      );
      expect([name, sources]).toEqual([name, expect.arrayContaining([`ConfigMap account-service-${name} (optional)`, `Secret account-service-${name}-secrets (optional)`])]);
      // And a variable set in it reaches the service: nothing in `env` pins it to another value but these.
      const pinned = (container.env ?? []).map((e: { name: string }) => e.name);
      const variables = variablesOf(services[name as keyof typeof services].schema);
      expect(pinned.filter((v: string) => !variables.includes(v))).toEqual([]);
    }
  });

  it('has every NetworkPolicy, Service and PodDisruptionBudget select the pods of at least one Deployment', () => {
    const podLabels = byKind('Deployment').map((d) => d.spec.template.metadata.labels as Record<string, string>);
    const selectors = [
      ...byKind('NetworkPolicy').map((d) => [`NetworkPolicy ${d.metadata.name}`, d.spec.podSelector] as const),
      ...byKind('Service').map((d) => [`Service ${d.metadata.name}`, d.spec.selector] as const),
      ...byKind('PodDisruptionBudget').map((d) => [`PodDisruptionBudget ${d.metadata.name}`, d.spec.selector] as const),
    ];
    expect(selectors.length).toBeGreaterThan(5);
    const selectingNothing = selectors.filter(([, selector]) => !podLabels.some((labels) => selects(selector, labels))).map(([name]) => name);
    expect(selectingNothing).toEqual([]);
  });

  it('lets the monitoring namespace reach the health and metrics port of every pod', () => {
    const policy = named('NetworkPolicy', 'health-and-metrics-from-monitoring')!;
    for (const deployment of byKind('Deployment')) {
      expect([deployment.metadata.name, selects(policy.spec.podSelector, deployment.spec.template.metadata.labels)]).toEqual([deployment.metadata.name, true]);
    }
  });

  it('validates every object against the Kubernetes API schemas', () => {
    expect(docs.length).toBeGreaterThan(15);
    for (const doc of docs) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Model = require(`kubernetes-models/${doc.apiVersion}/${doc.kind}`)[doc.kind];
      expect(() => new Model(doc).validate()).not.toThrow();
    }
  });

  it('is caught by the validator when an object is wrong (the control)', () => {
    const broken = JSON.parse(JSON.stringify(named('Deployment', 'auth')));
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'three thousand';
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Deployment } = require('kubernetes-models/apps/v1/Deployment');
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort/);
  });

  it('puts everything in its namespace and commits no Secret', () => {
    expect(docs.filter((d) => d.kind !== 'Namespace').every((d) => d.metadata.namespace === 'account-service')).toBe(true);
    expect(byKind('Secret')).toEqual([]);
  });

  it.each(Object.keys(services) as Array<keyof typeof services>)('gives %s an environment its config accepts in production, and only variables it reads', (name) => {
    const deployment = named('Deployment', name)!;
    const env = environmentOf(deployment);
    expect(env.NODE_ENV).toBe('production');
    const config = services[name].load(withMountedFiles(env)) as { HEALTH_PORT: number; SHUTDOWN_DELAY_MS: number; SHUTDOWN_TIMEOUT_MS: number; PORT?: number };
    const known = Object.keys(services[name].schema.shape);
    const container = deployment.spec.template.spec.containers[0];
    expect((container.env as Array<{ name: string }>).map((e) => e.name).filter((n) => !known.includes(n))).toEqual([]);

    const ports = Object.fromEntries((container.ports as Array<{ name: string; containerPort: number }>).map((p) => [p.name, p.containerPort]));
    expect(ports.health).toBe(config.HEALTH_PORT);
    if (name !== 'notifier') expect(ports.http).toBe(config.PORT);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'health' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'health' });
    expect(container.startupProbe.httpGet).toEqual({ path: '/health/live', port: 'health' });
    // The image's heap budget (256 MB) plus room for code, buffers and the young generation.
    expect(Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)?.[1])).toBeGreaterThanOrEqual(256 + 128);
    expect(container.resources.requests.cpu).toBeDefined();
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS);
    expect(container.image).toMatch(/^registry\.example\.com\/account-service\/[a-z]+:\d+\.\d+\.\d+$/);
  });

  it('gives every Deployment a disruption budget, and autoscales the gateway, auth and the notifier', () => {
    for (const name of Object.keys(services)) expect(named('PodDisruptionBudget', name)?.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': name });
    expect(byKind('HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['auth', 'gateway', 'notifier']);
  });

  it('lets only the gateway in from outside, the services only from the gateway, and health only from monitoring', () => {
    const policies = byKind('NetworkPolicy');
    expect(policies.find((p) => p.metadata.name === 'default-deny-ingress')?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const fromOutside = policies.filter((p) => JSON.stringify(p.spec.ingress ?? []).includes('ingress-nginx'));
    expect(fromOutside.map((p) => p.spec.podSelector)).toEqual([{ matchLabels: { 'app.kubernetes.io/name': 'gateway' } }]);
    const toServices = policies.find((p) => JSON.stringify(p.spec.podSelector).includes('auth'))!;
    expect(toServices.spec.ingress).toEqual([expect.objectContaining({ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } } }] })]);
    const health = policies.find((p) => JSON.stringify(p.spec.ingress ?? []).includes('monitoring'))!;
    expect(health.spec.ingress[0].ports).toEqual([{ protocol: 'TCP', port: 9000 }]);
  });

  it('reaches the gateway through a TLS ingress, and the gateway believes that one proxy', () => {
    const [ingress] = byKind('Ingress');
    expect(ingress.spec.tls).toEqual([{ hosts: ['api.example.com'], secretName: 'account-api-tls' }]);
    expect(ingress.spec.rules[0].http.paths[0].backend.service.name).toBe('gateway');
    expect(environmentOf(named('Deployment', 'gateway')!).TRUST_PROXY).toBe('1');
  });
});

describe('deploy/kubernetes/stores-ha (the clustered stores)', () => {
  const stores = render('deploy/kubernetes/stores-ha');
  const kustomization = fs.readFileSync(path.join(root, 'deploy/kubernetes/stores-ha/kustomization.yaml'), 'utf8');

  it('validates every object against the Kubernetes API schemas, and commits no Secret', () => {
    for (const doc of stores) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Model = require(`kubernetes-models/${doc.apiVersion}/${doc.kind}`)[doc.kind];
      expect(() => new Model(doc).validate()).not.toThrow();
    }
    expect(stores.filter((d) => d.kind === 'Secret')).toEqual([]);
  });

  it('runs three Redis nodes with a sentinel each, three RabbitMQ nodes and a three-member replica set, each with a budget that keeps two', () => {
    const sets = stores.filter((d) => d.kind === 'StatefulSet');
    expect(sets.map((s) => [s.metadata.name, s.spec.replicas]).sort()).toEqual([
      ['mongo', 3],
      ['rabbitmq', 3],
      ['redis', 3],
    ]);
    const redis = sets.find((s) => s.metadata.name === 'redis')!;
    expect(redis.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['redis', 'sentinel']);
    expect(sets.find((s) => s.metadata.name === 'mongo')!.spec.template.spec.containers[0].args).toEqual(['--replSet', 'rs0', '--bind_ip_all', '--keyFile', '/keyfile/keyfile']);
    for (const budget of stores.filter((d) => d.kind === 'PodDisruptionBudget')) {
      const replicas = sets.find((s) => selects(budget.spec.selector, s.spec.template.metadata.labels))!.spec.replicas as number;
      expect([budget.metadata.name, budget.spec.minAvailable ?? replicas - budget.spec.maxUnavailable]).toEqual([budget.metadata.name, 2]);
    }
  });

  it('gives every store container a securityContext: no privilege escalation, capabilities dropped, non-root where the image allows', () => {
    const pods = stores.filter((d) => d.kind === 'StatefulSet' || d.kind === 'Job').map((d) => [d.metadata.name, d.spec.template.spec] as const);
    expect(pods.length).toBe(3);
    for (const [name, pod] of pods) {
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        const context = container.securityContext ?? {};
        expect([name, container.name, context.allowPrivilegeEscalation, context.capabilities?.drop]).toEqual([name, container.name, false, ['ALL']]);
      }
      // RabbitMQ's entrypoint steps down to its user itself; the others run as the image's user from the start.
      if (name !== 'rabbitmq') expect([name, pod.securityContext?.runAsNonRoot]).toEqual([name, true]);
    }
  });

  it('keeps what the sentinels decided on a volume, so a restart of every pod brings back no stale master', () => {
    const redis = stores.find((d) => d.kind === 'StatefulSet' && d.metadata.name === 'redis')!;
    const sentinel = redis.spec.template.spec.containers.find((c: { name: string }) => c.name === 'sentinel');
    expect(sentinel.volumeMounts).toContainEqual({ name: 'sentinel-data', mountPath: '/data' });
    expect(redis.spec.volumeClaimTemplates.map((t: { metadata: { name: string } }) => t.metadata.name)).toContain('sentinel-data');
    expect((redis.spec.template.spec.volumes ?? []).map((v: { name: string }) => v.name)).not.toContain('sentinel-data');
    // Both start from the scripts compose uses, told which pod they are.
    const env = (container: string) => Object.fromEntries(redis.spec.template.spec.containers.find((c: { name: string }) => c.name === container).env.map((e: { name: string; value?: string }) => [e.name, e.value]));
    expect(env('redis')).toMatchObject({ REDIS_SELF: '$(POD_NAME).redis.account-stores.svc.cluster.local', REDIS_FIRST_MASTER: 'redis-0.redis.account-stores.svc.cluster.local' });
    expect(env('sentinel')).toMatchObject({ SENTINEL_SELF: '$(POD_NAME).redis.account-stores.svc.cluster.local' });
    // Each sentinel by its pod's own address, never one through the Service (a random one, maybe stale),
    // and every pod at once (a node waits for a majority of them).
    const pods = [0, 1, 2].map((i) => `redis-${i}.redis.account-stores.svc.cluster.local:26379`).join(' ');
    expect([env('redis').REDIS_SENTINELS, env('sentinel').REDIS_SENTINELS]).toEqual([pods, pods]);
    expect(redis.spec.podManagementPolicy).toBe('Parallel');
    const scripts = stores.find((d) => d.kind === 'ConfigMap' && d.metadata.name.startsWith('redis-scripts'))!;
    expect(Object.keys(scripts.data ?? {}).sort()).toEqual(['redis-master.sh', 'redis-start.sh', 'sentinel-start.sh']);
  });

  it('runs MongoDB with access control: members share a keyfile only mongod can read, and the stack signs in as its own user', () => {
    const mongo = stores.find((d) => d.kind === 'StatefulSet' && d.metadata.name === 'mongo')!.spec.template.spec;
    const container = (name: string) => [...mongo.initContainers, ...mongo.containers].find((c: { name: string }) => c.name === name);
    // The copy made by mongod's own user, mode 0400, on the volume mongod reads it from.
    expect(container('keyfile').command.join(' ')).toContain('install -m 0400 /secret/keyfile /keyfile/keyfile');
    expect(container('mongo').volumeMounts).toContainEqual({ name: 'keyfile', mountPath: '/keyfile', readOnly: true });
    expect(mongo.volumes.find((v: { name: string }) => v.name === 'keyfile-secret').secret.secretName).toBe('mongo-auth');
    // The setup beside mongo-0 makes a user with readWrite on every service's own database.
    const setupEnv = Object.fromEntries(container('setup').env.map((e: { name: string; value?: string }) => [e.name, e.value]));
    const databases = Object.entries(services)
      .map(([name, service]) => (service.load(withMountedFiles(environmentOf(named('Deployment', name)!))) as { MONGO_DB?: string }).MONGO_DB)
      .filter((db): db is string => db !== undefined);
    expect(databases.length).toBeGreaterThan(0);
    expect(setupEnv.MONGO_APP_DATABASES.split(',').sort()).toEqual(databases.sort());
    const script = fs.readFileSync(path.join(root, 'deploy/kubernetes/stores-ha/mongo-setup.js'), 'utf8');
    expect(script).toContain("admin.createUser({ user: 'account-service'");
    expect(script).not.toMatch(/print\([^)]*Password/);
    // The documented URL signs in as that user against the admin database.
    expect(kustomization).toMatch(/MONGO_URL=mongodb:\/\/account-service:<password>@.*authSource=admin/);
  });

  it('lets only the stack’s namespace reach the stores’ client ports, and each store’s own pods the rest', () => {
    const policies = stores.filter((d) => d.kind === 'NetworkPolicy');
    expect(policies.find((p) => p.metadata.name === 'default-deny-ingress')!.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const sets = stores.filter((d) => d.kind === 'StatefulSet');
    for (const set of sets) {
      const labels = set.spec.template.metadata.labels;
      const own = policies.filter((p) => Object.keys(p.spec.podSelector).length > 0 && selects(p.spec.podSelector, labels));
      expect([set.metadata.name, own.length]).toEqual([set.metadata.name, 1]);
      const fromStack = own[0].spec.ingress.filter((rule: { from: Array<{ namespaceSelector?: { matchLabels: Record<string, string> } }> }) =>
        rule.from.some((f) => f.namespaceSelector?.matchLabels['kubernetes.io/metadata.name'] === 'account-service'),
      );
      expect([set.metadata.name, fromStack.length]).toEqual([set.metadata.name, 1]);
    }
  });

  it('documents URLs that every service accepts in production', () => {
    const documented = (name: string) => {
      const line = new RegExp(`^#\\s+${name}=(\\S+)`, 'm').exec(kustomization)?.[1];
      if (!line) throw new Error(`${name} is not documented in stores-ha/kustomization.yaml`);
      // The placeholders, and the "…" of the elided AMQP nodes, as an operator fills them in.
      return line.replace(/<[a-z]+>/g, 'secret').replace(/amqp:\/\/…@rabbitmq-(\d)…/g, 'amqp://u:secret@rabbitmq-$1.rabbitmq.account-stores:5672');
    };
    const urls = { REDIS_URL: documented('REDIS_URL'), AMQP_URL: documented('AMQP_URL'), MONGO_URL: documented('MONGO_URL') };
    expect(urls.AMQP_URL.split(',')).toHaveLength(3);
    for (const [name, service] of Object.entries(services)) {
      const env = { ...environmentOf(named('Deployment', name)!), ...urls };
      const config = service.load(withMountedFiles(env)) as Record<string, unknown>;
      expect([name, config.REDIS_URL]).toEqual([name, urls.REDIS_URL]);
    }
  });
});
