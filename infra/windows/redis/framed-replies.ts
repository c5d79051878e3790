import { Command, type Redis } from 'ioredis';

/**
 * The replies of a frame of `count` commands framed whole by a RespWriter, taken by one Command.
 *
 * Why: ioredis matches each reply to a queued command, so a frame needs `count` entries in the
 * connection's queue; a Command each (sent through a pipeline) costs a promise, a command timer,
 * the pipeline's two promises and their garbage per reply, which plain claims (plain-claims.ts)
 * paid two or three times an event (bench/results/counters-redis-split.notes.md). Here one Command
 * is queued `count` times: each reply is added to one array, and its one promise settles when the
 * last is in (or with the first error reply). It keeps ioredis's connection handling: the command
 * timeout (one timer for the frame), the offline queue while connecting, the resend of a frame none
 * of whose replies came before a lost connection, and the failure of one whose replies had begun.
 */
class FramedReplies extends Command {
  private readonly replies: unknown[] = [];
  /** Times the frame was handed to the connection: `count` a send, the first carrying its bytes. */
  private handed = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly count: number,
  ) {
    super('hget', []);
    this.pipelineIndex = 0;
    const settle = this.resolve;
    this.resolve = (reply: unknown) => {
      // ioredis drops a pipeline's queued commands after a lost connection when its earlier replies
      // were taken (abortIncompletePipelines): an index other than 0 and the one it expects next. A
      // frame whose replies began is such a pipeline (-1: never expected); one with none is sent again whole.
      this.pipelineIndex = -1;
      // Integer and nil replies come as they are, bulk strings as Buffers, decoded as ioredis would (utf8).
      this.replies.push(Buffer.isBuffer(reply) ? reply.toString() : reply);
      if (this.replies.length === this.count) settle(this.replies);
    };
  }

  override toWritable(): Buffer | string {
    return this.handed++ % this.count === 0 ? this.bytes : '';
  }
}

/**
 * Sends `count` commands framed whole (each an `array` header and its bulk strings) in one write and
 * answers their replies in order, or rejects with the first error reply, the command timeout or the
 * connection's error. One Redis server: the replies follow the connection's order.
 */
export function sendFramed(redis: Redis, frame: Buffer, count: number): Promise<unknown[]> {
  if (count < 1) throw new Error(`a frame has at least one command, got ${count}`);
  const command = new FramedReplies(frame, count);
  // The frame's later entries carry no bytes: written through here, they make no empty socket writes.
  const stream = { write: (bytes: Buffer | string) => bytes.length > 0 && redis.stream.write(bytes) };
  for (let i = 0; i < count; i++) void redis.sendCommand(command, stream as never);
  return command.promise as Promise<unknown[]>;
}
