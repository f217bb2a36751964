// REDIS_URL's grammar, without ioredis: the config schema checks it at start, topology.ts connects by it.

export type RedisTopology =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: HostPort[]; auth: Credentials; tls: boolean }
  | { kind: 'sentinel'; sentinels: HostPort[]; masterName: string; db: number; auth: Credentials; tls: boolean };

export interface HostPort {
  host: string;
  port: number;
}

interface Credentials {
  username?: string;
  password?: string;
}

const MULTI_HOST = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/?#]+)(\/[^?#]*)?$/;

/** The topology a REDIS_URL names; throws a one-line reason when it names none. */
export function parseRedisUrl(url: string): RedisTopology {
  if (/^rediss?:\/\//.test(url)) {
    new URL(url);
    return { kind: 'single', url };
  }
  const match = MULTI_HOST.exec(url);
  if (!match) throw new Error('expected redis://, rediss://, redis+cluster:// or redis+sentinel:// followed by host:port');
  const [, scheme, kind, userinfo, hostList, path = ''] = match;
  const hosts = hostList.split(',').map(hostPort);
  const auth = credentials(userinfo);
  const tls = scheme === 'rediss';
  if (kind === 'cluster') {
    if (path.replace(/\/$/, '') !== '') throw new Error('a cluster URL takes no path: a cluster has only database 0');
    return { kind: 'cluster', nodes: hosts, auth, tls };
  }
  const [masterName, db = '0', ...rest] = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (!masterName) throw new Error("a sentinel URL names the master after the hosts: redis+sentinel://host:26379/mymaster");
  if (rest.length > 0 || !/^\d+$/.test(db)) throw new Error('expected /master or /master/db after the sentinel hosts');
  return { kind: 'sentinel', sentinels: hosts, masterName, db: Number(db), auth, tls };
}

function hostPort(value: string): HostPort {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (!match) throw new Error(`not a host:port: ${value}`);
  const port = Number(match[2] ?? 6379);
  if (port < 1 || port > 65535) throw new Error(`not a port: ${match[2]}`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function credentials(userinfo: string | undefined): Credentials {
  if (!userinfo) return {};
  const at = userinfo.indexOf(':');
  const username = decodeURIComponent(at < 0 ? userinfo : userinfo.slice(0, at));
  const password = at < 0 ? undefined : decodeURIComponent(userinfo.slice(at + 1));
  return { username: username || undefined, password: password || undefined };
}

