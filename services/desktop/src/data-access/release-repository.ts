// Desktop releases per platform. The newest is chosen by semantic-version order, not by date.
import mongoose, { type Connection, type Model } from 'mongoose';
import semver from 'semver';
import type { Platform } from '../domain/platforms';
import type { LatestReleases, NewRelease, Release, ReleaseStore } from '../domain/ports';
import { isDuplicateKey, modelOn } from '@acct/shared/mongo';

type ReleaseDoc = Release;

const releaseSchema = new mongoose.Schema<ReleaseDoc>(
  {
    platform: { type: String, required: true },
    version: { type: String, required: true },
    url: { type: String, required: true },
    sha256: { type: String, required: true },
    notes: { type: String, default: '' },
    mandatory: { type: Boolean, default: false },
    publishedAt: { type: Date, required: true },
    withdrawnAt: { type: Date, default: null },
  },
  { versionKey: false },
);
releaseSchema.index({ platform: 1, version: 1 }, { unique: true });

/**
 * The latest release per platform, kept for a short time: every desktop client polls this, and the
 * answer changes only when a release is published. Replicas may disagree for at most `ttlMs`.
 */
export class LatestReleaseCache implements LatestReleases {
  private readonly entries = new Map<Platform, { at: number; release: Promise<ReleaseDoc | undefined> }>();

  constructor(
    private readonly releases: ReleaseRepository,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  latest(platform: Platform): Promise<ReleaseDoc | undefined> {
    const cached = this.entries.get(platform);
    if (cached && this.now() - cached.at < this.ttlMs) return cached.release;
    const release = this.releases.latest(platform);
    this.entries.set(platform, { at: this.now(), release });
    // A failed read is not cached.
    release.catch(() => this.entries.delete(platform));
    return release;
  }

  forget(platform: Platform): void {
    this.entries.delete(platform);
  }
}

export class ReleaseRepository implements ReleaseStore {
  private readonly model: Model<ReleaseDoc>;

  constructor(connection: Connection) {
    this.model = modelOn<ReleaseDoc>(connection, 'Release', releaseSchema, 'releases');
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The highest published (not withdrawn) version for a platform. */
  async latest(platform: Platform): Promise<ReleaseDoc | undefined> {
    const releases = await this.model.find({ platform, withdrawnAt: null }).lean<ReleaseDoc[]>().exec();
    return releases.sort((a, b) => semver.rcompare(a.version, b.version))[0];
  }

  /** Publishes a release; `exists` when that platform and version were published before. */
  async publish(release: NewRelease): Promise<ReleaseDoc | 'exists'> {
    try {
      const created = await this.model.create({ ...release, publishedAt: new Date(), withdrawnAt: null });
      const { _id, ...doc } = created.toObject() as ReleaseDoc & { _id?: unknown };
      return doc;
    } catch (err) {
      if (isDuplicateKey(err)) return 'exists';
      throw err;
    }
  }

  async withdraw(platform: Platform, version: string): Promise<boolean> {
    const result = await this.model.updateOne({ platform, version, withdrawnAt: null }, { $set: { withdrawnAt: new Date() } }).exec();
    return result.modifiedCount === 1;
  }

  async list(platform?: Platform): Promise<ReleaseDoc[]> {
    const releases = await this.model.find(platform ? { platform } : {}, { _id: 0 }).lean<ReleaseDoc[]>().exec();
    return releases.sort((a, b) => a.platform.localeCompare(b.platform) || semver.rcompare(a.version, b.version));
  }
}
