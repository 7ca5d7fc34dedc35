import { boundingBox, EARTH_RADIUS_KM } from '../../src/events/geo-area';

function haversine(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h =
    Math.sin(rad(b.lat - a.lat) / 2) ** 2 +
    Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lng - a.lng) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(h));
}

describe('geo bounding box', () => {
  it('holds every point within the radius', () => {
    for (const [lat, lng, radiusKm] of [
      [52.37, 4.9, 10],
      [0, 0, 500],
      [-33.87, 151.21, 50],
      [70, 20, 300],
    ]) {
      const box = boundingBox({ lat, lng, radiusKm });
      for (let bearing = 0; bearing < 360; bearing += 5) {
        // A point at the radius (slightly inside) in that direction.
        const d = (radiusKm * 0.999) / EARTH_RADIUS_KM;
        const b = (bearing * Math.PI) / 180;
        const φ1 = (lat * Math.PI) / 180;
        const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(b));
        const λ2 =
          (lng * Math.PI) / 180 +
          Math.atan2(
            Math.sin(b) * Math.sin(d) * Math.cos(φ1),
            Math.cos(d) - Math.sin(φ1) * Math.sin(φ2),
          );
        const point = { lat: (φ2 * 180) / Math.PI, lng: (λ2 * 180) / Math.PI };
        expect(haversine({ lat, lng }, point)).toBeLessThan(radiusKm);
        expect(point.lat).toBeGreaterThanOrEqual(box.minLat);
        expect(point.lat).toBeLessThanOrEqual(box.maxLat);
        expect(point.lng).toBeGreaterThanOrEqual(box.minLng as number);
        expect(point.lng).toBeLessThanOrEqual(box.maxLng as number);
      }
    }
  });

  it('is about 0.09 degrees of latitude per 10 km', () => {
    const box = boundingBox({ lat: 52, lng: 5, radiusKm: 10 });
    expect(box.maxLat - 52).toBeCloseTo(0.0899, 3);
    expect((box.maxLng as number) - 5).toBeGreaterThan(0.0899);
  });

  it('drops the longitude bounds near a pole or across the antimeridian', () => {
    expect(boundingBox({ lat: 89.95, lng: 0, radiusKm: 10 })).toEqual({
      minLat: expect.any(Number),
      maxLat: 90,
    });
    expect(boundingBox({ lat: 0, lng: 179.99, radiusKm: 10 })).toEqual({
      minLat: expect.any(Number),
      maxLat: expect.any(Number),
    });
  });
});
