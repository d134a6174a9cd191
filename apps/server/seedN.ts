import { seedPublished } from './bench/seed.ts';
await seedPublished(process.argv[2]!, Number(process.argv[3]));
