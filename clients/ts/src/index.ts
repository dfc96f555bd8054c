export { DEFAULT_FRAME_BYTES, SluiceClient, UploadOptions } from "./client";
export { SluiceError, decodeError } from "./errors";
export * as knowledge from "./gen/sluice/v1/knowledge";
export * as knowledgeBase from "./gen/sluice/v1/knowledge_base";
export * as search from "./gen/sluice/v1/search";
