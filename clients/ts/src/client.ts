// A thin typed wrapper over the generated @grpc/grpc-js stubs: promises instead of
// callbacks, upload from a file in bounded frames, watch as an async iterator, and
// SluiceError (with the decoded details) for every failed call.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { ChannelCredentials, ClientReadableStream, ServiceError } from "@grpc/grpc-js";
import { decodeError, isServiceError } from "./errors";
import {
  CreateKnowledgeBaseRequest,
  CreateKnowledgeBaseResponse,
  KnowledgeBase,
  KnowledgeBaseServiceClient,
} from "./gen/sluice/v1/knowledge_base";
import {
  FileHeader,
  Knowledge,
  KnowledgeServiceClient,
  WatchSpansRequest,
  WatchSpansResponse,
} from "./gen/sluice/v1/knowledge";
import { SearchRequest, SearchResponse, SearchResult, SearchServiceClient } from "./gen/sluice/v1/search";

/** Data frames of 1 MiB: well under every server's message limit (see FileHeader). */
export const DEFAULT_FRAME_BYTES = 1 << 20;

export interface UploadOptions extends Partial<Omit<FileHeader, "knowledgeBaseId">> {
  frameBytes?: number;
}

export class SluiceClient {
  readonly knowledgeBases: KnowledgeBaseServiceClient;
  readonly knowledge: KnowledgeServiceClient;
  readonly search_: SearchServiceClient;

  constructor(target: string, credentials: ChannelCredentials = ChannelCredentials.createInsecure()) {
    this.knowledgeBases = new KnowledgeBaseServiceClient(target, credentials);
    this.knowledge = new KnowledgeServiceClient(target, credentials, {
      // The channel is shared by the three stubs; close() closes it once.
      channelOverride: this.knowledgeBases.getChannel() as never,
    });
    this.search_ = new SearchServiceClient(target, credentials, {
      channelOverride: this.knowledgeBases.getChannel() as never,
    });
  }

  close(): void {
    this.knowledgeBases.close();
  }

  async createKnowledgeBase(request: Partial<CreateKnowledgeBaseRequest>): Promise<KnowledgeBase> {
    const reply = await unary<CreateKnowledgeBaseResponse>((done) =>
      this.knowledgeBases.createKnowledgeBase(CreateKnowledgeBaseRequest.fromPartial(request), done),
    );
    return required(reply.knowledgeBase, "knowledgeBase");
  }

  /** Uploads `path`: the header frame (with the file's size), then its bytes in frames. */
  async uploadFile(knowledgeBaseId: string, path: string, options: UploadOptions = {}): Promise<Knowledge> {
    const { frameBytes = DEFAULT_FRAME_BYTES, ...header } = options;
    const { size } = await stat(path);
    return new Promise<Knowledge>((resolve, reject) => {
      const call = this.knowledge.createFromFile((error, reply) => {
        if (error) reject(decodeError(error));
        else resolve(required(reply.knowledge, "knowledge"));
      });
      call.write({
        frame: {
          $case: "header",
          value: FileHeader.fromPartial({ fileName: basename(path), size, ...header, knowledgeBaseId }),
        },
      });
      const file = createReadStream(path, { highWaterMark: frameBytes });
      file.on("data", (piece) => {
        if (!call.write({ frame: { $case: "data", value: piece as Buffer } })) {
          file.pause();
          call.once("drain", () => file.resume());
        }
      });
      file.on("end", () => call.end());
      // A local read error cancels the call, so the server keeps nothing.
      file.on("error", (error) => {
        call.cancel();
        reject(error);
      });
    });
  }

  /** The knowledge's span events until the END event (included); failures as SluiceError. */
  async *watch(request: Partial<WatchSpansRequest>): AsyncGenerator<WatchSpansResponse> {
    const stream: ClientReadableStream<WatchSpansResponse> = this.knowledge.watchSpans(
      WatchSpansRequest.fromPartial(request),
    );
    try {
      for await (const event of stream) {
        yield event as WatchSpansResponse;
      }
    } catch (error) {
      throw isServiceError(error) ? decodeError(error) : error;
    } finally {
      stream.cancel();
    }
  }

  async search(request: Partial<SearchRequest>): Promise<SearchResult[]> {
    const reply = await unary<SearchResponse>((done) => this.search_.search(SearchRequest.fromPartial(request), done));
    return reply.results;
  }
}

function unary<T>(call: (done: (error: ServiceError | null, reply: T) => void) => unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    call((error, reply) => (error ? reject(decodeError(error)) : resolve(reply)));
  });
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`the server's reply has no ${name}`);
  return value;
}
