// Forgot-password requests (and verification resends, and email sign-ins) waiting for their mail (MongoDB `password_reset_requests`). The route
// stores every request for an address alike, whether or not an account has it, and answers; a
// worker takes them later on its own schedule, so neither the answer nor the requests after it say
// whether the address exists, and a request outlives a crash or a dependency outage.
import mongoose, { type Connection, type Model, Types } from 'mongoose';
import type { ClaimedResetRequest, ResetRequest, ResetRequests } from '../domain/email/ports';
import { LeasedQueue, modelOn } from '@acct/shared/mongo';

interface ResetRequestDoc extends ResetRequest {
  _id: Types.ObjectId;
  createdAt: Date;
  leaseUntil: Date;
  attempts: number;
}

const resetRequestSchema = new mongoose.Schema<ResetRequestDoc>(
  {
    purpose: { type: String, default: 'reset' },
    kind: { type: String, required: true },
    email: { type: String, required: true },
    ip: { type: String, required: true },
    requestId: String,
    language: String,
    mail: { type: Boolean, required: true },
    flowId: String,
    createdAt: { type: Date, required: true, index: { expireAfterSeconds: 86_400 } },
    leaseUntil: { type: Date, required: true },
    attempts: { type: Number, default: 0 },
  },
  { versionKey: false },
);
resetRequestSchema.index({ leaseUntil: 1 });

export class MongoResetRequestQueue implements ResetRequests {
  private readonly model: Model<ResetRequestDoc>;
  private readonly queue: LeasedQueue<ResetRequestDoc>;

  constructor(connection: Connection, leaseMs = 30_000) {
    this.model = modelOn<ResetRequestDoc>(connection, 'ResetRequest', resetRequestSchema, 'password_reset_requests');
    this.queue = new LeasedQueue(this.model, { leaseMs });
  }

  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  async enqueue(request: ResetRequest): Promise<void> {
    const now = new Date();
    await this.model.create({ ...request, createdAt: now, leaseUntil: now, attempts: 0 });
  }

  /** Leases the oldest waiting request to this worker (a crashed worker's lease runs out). */
  async claim(now = new Date()): Promise<ClaimedResetRequest | undefined> {
    const doc = await this.queue.claim(now);
    if (!doc) return undefined;
    return { id: doc._id.toString(), purpose: doc.purpose ?? 'reset', kind: doc.kind, email: doc.email, ip: doc.ip, requestId: doc.requestId, mail: doc.mail, attempts: doc.attempts, ...(doc.flowId ? { flowId: doc.flowId } : {}), ...(doc.language ? { language: doc.language } : {}) };
  }

  async remove(id: string): Promise<void> {
    if (Types.ObjectId.isValid(id)) await this.queue.remove(new Types.ObjectId(id));
  }
}
