import "dotenv/config";
import { doctor } from "./app/doctor-main.js";

/** `npm run doctor`: the setup check, from the environment (and .env); exits 1 when a required check failed. */
process.exitCode = await doctor(process.env, (line) => console.log(line));
