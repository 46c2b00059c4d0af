/** The mock model server used by model-client and agent tests. */
export { startMockModelServer, type MockModelServer, type MockModelServerOptions, type MockOutcome, type MockRecordedRequest } from './server.js';
export {
  createGate,
  type Gate,
  type MockContentStep,
  type MockControlStep,
  type MockFinishReason,
  type MockScript,
  type MockScriptFactory,
  type MockStep,
  type MockToolCall,
  type MockUsage,
} from './script.js';
