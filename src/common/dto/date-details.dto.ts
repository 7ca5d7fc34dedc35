/** A date's parts as zero-padded strings. */
export class DateDetailsDto {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}
