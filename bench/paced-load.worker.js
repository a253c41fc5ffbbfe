// Worker threads do not inherit tsx's loader: register it, then load the TypeScript load generator.
import { register } from 'tsx/esm/api';

register();
await import('./paced-load.ts');
