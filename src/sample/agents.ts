// Commercial registered agents: a dozen companies, each at one fixed Florida address, that serve many entities.
import { Weighted } from './random.js';

export interface CommercialAgent {
  readonly name: string;
  readonly addr: string;
  readonly city: string;
  readonly zip: string;
}

const agent = (name: string, addr: string, city: string, zip: string): CommercialAgent => ({ name, addr, city, zip });

export const COMMERCIAL_AGENTS = new Weighted<CommercialAgent>([
  [agent('CORPORATION SERVICE COMPANY', '1201 HAYS STREET', 'TALLAHASSEE', '323012525'), 20],
  [agent('C T CORPORATION SYSTEM', '1200 SOUTH PINE ISLAND ROAD', 'PLANTATION', '33324'), 15],
  [agent('REGISTERED AGENTS INC.', '7901 4TH ST N STE 300', 'ST. PETERSBURG', '33702'), 14],
  [agent('SUNBIZ AGENTS LLC', '3500 N STATE ROAD 7 STE 431', 'LAUDERDALE LAKES', '33319'), 12],
  [agent('FLORIDA REGISTERED AGENT LLC', '7345 W SAND LAKE RD STE 210', 'ORLANDO', '32819'), 9],
  [agent('UNITED STATES CORPORATION AGENTS, INC.', '2001 NW 107TH AVE', 'DORAL', '33172'), 8],
  [agent('INCORP SERVICES, INC.', '17888 67TH COURT NORTH', 'LOXAHATCHEE', '33470'), 6],
  [agent('COGENCY GLOBAL INC.', '115 NORTH CALHOUN ST STE 4', 'TALLAHASSEE', '32301'), 5],
  [agent('NATIONAL REGISTERED AGENTS, INC.', '1200 SOUTH PINE ISLAND ROAD', 'PLANTATION', '33324'), 5],
  [agent('LEGALINC CORPORATE SERVICES INC.', '1150 NW 72ND AVE STE 455', 'MIAMI', '33126'), 4],
  [agent('REGISTERED AGENT SOLUTIONS, INC.', '155 OFFICE PLAZA DR STE A', 'TALLAHASSEE', '32301'), 4],
  [agent('BUSINESS FILINGS INCORPORATED', '2 SOUTH BISCAYNE BLVD STE 3200', 'MIAMI', '33131'), 3],
  [agent('SPIEGEL & UTRERA, P.A.', '1785 E SUNRISE BLVD STE 1100', 'FORT LAUDERDALE', '33304'), 5],
]);
