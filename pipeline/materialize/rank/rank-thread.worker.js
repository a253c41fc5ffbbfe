// Worker threads do not inherit tsx's loader: register it, then load the TypeScript thread.
import { register } from 'tsx/esm/api';

register();
await import('./rank-thread.ts');
