import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReceptionistSettingsEntity } from './entities/receptionist-settings.entity.js';
import { ReceptionistController } from './receptionist.controller.js';
import { ReceptionistService } from './receptionist.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([ReceptionistSettingsEntity])],
  controllers: [ReceptionistController],
  providers: [ReceptionistService],
  exports: [ReceptionistService],
})
export class ReceptionistModule {}
