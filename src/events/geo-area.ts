/*
 * The `geoloc_lat`/`geoloc_lng`/`geoloc_radius` list filter (docs/api.md §5.1):
 * a latitude/longitude box that an index range can serve, refined by the
 * great-circle distance.
 */

export interface GeoArea {
  lat: number;
  lng: number;
  radiusKm: number;
}

/** Inclusive bounds in degrees; no longitude bounds where the box would wrap around. */
export interface GeoBox {
  minLat: number;
  maxLat: number;
  minLng?: number;
  maxLng?: number;
}

export const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

/** The smallest latitude/longitude box that holds every point within the radius. */
export function boundingBox(area: GeoArea): GeoBox {
  const latDelta = area.radiusKm / KM_PER_DEGREE;
  const minLat = Math.max(-90, area.lat - latDelta);
  const maxLat = Math.min(90, area.lat + latDelta);
  // Near a pole every longitude may be within reach.
  if (minLat <= -90 || maxLat >= 90) return { minLat, maxLat };
  const widest = Math.max(Math.abs(minLat), Math.abs(maxLat));
  const lngDelta = latDelta / Math.cos((widest * Math.PI) / 180);
  if (area.lng - lngDelta < -180 || area.lng + lngDelta > 180) return { minLat, maxLat };
  return { minLat, maxLat, minLng: area.lng - lngDelta, maxLng: area.lng + lngDelta };
}

/** Haversine distance in km between `(lat, lng)` columns and the `:geoLat`/`:geoLng` parameters. */
export function distanceSql(lat: string, lng: string): string {
  const half = (a: string, b: string) => `POWER(SIN(RADIANS(${a} - ${b}) / 2), 2)`;
  return (
    `2 * ${EARTH_RADIUS_KM} * ASIN(SQRT(${half(lat, ':geoLat')} + ` +
    `COS(RADIANS(:geoLat)) * COS(RADIANS(${lat})) * ${half(lng, ':geoLng')}))`
  );
}
